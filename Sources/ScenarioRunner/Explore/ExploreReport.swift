import JSON

/// What `explore` prints and writes, in the forms `scenarios` uses: a summary, JUnit XML (one
/// test case per kind of finding), JSON, and each shrunk file under its name.
///
/// ```swift
/// ExploreReport.summary(result)                // "500 histories (312.4/s), 1 finding: …"
/// ExploreReport.fileName(result.found[0])      // "explore-7-12-differential-screen.yaml"
/// ```
public enum ExploreReport {
    public static func fileName(_ found: Explorer.Found) -> String {
        let slug = found.finding.signature.map { c -> Character in
            c.isLetter || c.isNumber || c == "-" ? c : "-"
        }
        return "explore-\(found.original.seed)-\(found.original.run)-\(String(slug)).yaml"
    }

    public static func summary(_ result: Explorer.Result) -> String {
        var lines: [String] = []
        for f in result.found {
            lines.append(
                "FOUND  \(f.finding.signature)  [history \(f.original.seed):\(f.original.run), \(f.occurrences) of \(result.histories) histories]"
            )
            lines.append("  \(f.finding.message)")
            lines.append(
                "  shrunk from \(f.original.moves.count) to \(f.shrunk.moves.count) moves in \(f.shrinkRuns) runs; covers \(f.finding.covers.joined(separator: ", "))"
            )
            if let why = f.unverified { lines.append("  NOT VERIFIED: \(why)") }
        }
        for e in result.harnessErrors.prefix(5) { lines.append("ERROR  history \(e.history): \(e.reason)") }
        if result.harnessErrors.count > 5 { lines.append("ERROR  … and \(result.harnessErrors.count - 5) more") }
        let rate = (result.historiesPerSecond * 10).rounded() / 10
        lines.append(
            "\(result.histories) histories (\(rate)/s), \(result.findings) finding(s), \(result.harnessErrors.count) harness error(s)"
                + " (subject: \(result.subjectName); reference: \(result.referenceName))"
        )
        return lines.joined(separator: "\n")
    }

    public static func json(_ result: Explorer.Result) -> JSON {
        .object([
            ("histories", .number(Double(result.histories))),
            ("wall_seconds", .number(result.wallSeconds)),
            ("histories_per_second", .number(result.historiesPerSecond)),
            ("subject", .string(result.subjectName)),
            ("reference", .string(result.referenceName)),
            (
                "findings",
                .array(
                    result.found.map { f in
                        .object([
                            ("judge", .string(f.finding.judge)),
                            ("signature", .string(f.finding.signature)),
                            ("history", .string("\(f.original.seed):\(f.original.run)")),
                            ("message", .string(f.finding.message)),
                            ("covers", .array(f.finding.covers.map(JSON.string))),
                            ("occurrences", .number(Double(f.occurrences))),
                            ("moves", .number(Double(f.original.moves.count))),
                            ("shrunk_moves", .number(Double(f.shrunk.moves.count))),
                            ("shrink_runs", .number(Double(f.shrinkRuns))),
                            ("verified", .bool(f.unverified == nil)),
                            ("unverified_reason", f.unverified.map(JSON.string) ?? .null),
                            ("file", .string(fileName(f))),
                            ("scenario", .string(f.file)),
                        ])
                    }
                )
            ),
            (
                "harness_errors",
                .array(
                    result.harnessErrors.map {
                        .object([("history", .string($0.history)), ("reason", .string($0.reason))])
                    }
                )
            ),
        ])
    }

    public static func junit(_ result: Explorer.Result) -> String {
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let failures = result.found.count
        let errors = result.harnessErrors.isEmpty ? 0 : 1
        let tests = max(1, failures + errors)
        out +=
            "<testsuites tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(JUnitReport.seconds(result.wallSeconds))\">\n"
        out +=
            "  <testsuite name=\"lerix-mock explore\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(JUnitReport.seconds(result.wallSeconds))\">\n"
        out +=
            "    <properties><property name=\"histories\" value=\"\(result.histories)\"/><property name=\"subject\" value=\"\(JUnitReport.escape(result.subjectName))\"/><property name=\"reference\" value=\"\(JUnitReport.escape(result.referenceName))\"/></properties>\n"
        if result.found.isEmpty && result.harnessErrors.isEmpty {
            out += "    <testcase classname=\"explore\" name=\"\(result.histories) histories\"/>\n"
        }
        for f in result.found {
            out +=
                "    <testcase classname=\"\(JUnitReport.escape(fileName(f)))\" name=\"\(JUnitReport.escape(f.finding.signature))\" time=\"\(JUnitReport.seconds(f.wallSeconds))\">\n"
            out +=
                "      <failure message=\"\(JUnitReport.escape(f.finding.message))\" type=\"ExploreFinding\">\(JUnitReport.escape(f.file))</failure>\n    </testcase>\n"
        }
        if !result.harnessErrors.isEmpty {
            let text = result.harnessErrors.map { "\($0.history): \($0.reason)" }.joined(separator: "\n")
            out +=
                "    <testcase classname=\"explore\" name=\"harness\">\n      <error message=\"\(result.harnessErrors.count) histories could not run\" type=\"ExploreError\">\(JUnitReport.escape(text))</error>\n    </testcase>\n"
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }
}
