import Clock
import Foundation
import ScenarioLanguage

/// `--markdown FILE`: a summary for a pull-request comment or `$GITHUB_STEP_SUMMARY`: counts
/// per adapter, each failure with expected vs seen, skips grouped by reason, the spec rows
/// without a passing scenario and, with several adapters, the conformance matrix.
///
/// ```swift
/// let text = MarkdownReport.markdown(document)   // cat it >> "$GITHUB_STEP_SUMMARY"
/// ```
public enum MarkdownReport {
    /// Failures listed in full before the rest are only named (a comment has a size limit).
    static let failuresInFull = 20

    public static func markdown(_ document: ResultDocument, title: String = "lerix-mock scenarios") -> String {
        let matrix = ConformanceMatrix(document)
        var out = "## \(text(title))\n\n"
        out += "| adapter | mode | total | passed | failed | errors | skipped | checks | wall |\n"
        out += "| - | - | -: | -: | -: | -: | -: | -: | -: |\n"
        for run in document.runs {
            let r = run.result
            var mode = run.mode.rawValue
            if !run.shards.isEmpty { mode += ", shard " + run.shards.map(\.description).joined(separator: " + ") }
            if run.rerun { mode += ", rerun" }
            out +=
                "| \(cell(r.adapterName.isEmpty ? "-" : r.adapterName)) | \(cell(mode)) | \(r.outcomes.count) | \(r.passed) | \(r.failed) | \(r.errors) | \(r.skipped) | \(r.checks) | \(JUnitReport.seconds(run.wallSeconds)) s |\n"
        }
        let several = document.runs.count > 1
        let failures = document.runs.flatMap { run in
            run.result.outcomes.filter { $0.status == .failed || $0.status == .error }.map { (run, $0) }
        }
        out += "\n### Failures\n\n"
        if failures.isEmpty { out += "None.\n" }
        for (index, (run, o)) in failures.enumerated() {
            let on = several ? " on \(text(run.result.adapterName))" : ""
            if index >= failuresInFull {
                out += "- \(o.status == .error ? "error" : "failed"): \(code(o.scenario))\(on) (\(code(o.file)))\n"
                continue
            }
            out += "#### \(o.status == .error ? "Error" : "Failed"): \(text(o.scenario))\(on)\n\n"
            if let step = o.failedStep {
                out +=
                    "Step \(step.number) at \(code(step.location)), virtual time \(code(TimeSyntax.relative(step.at))): \(code(step.text))\n\n"
                out += fenced(step.message)
            } else {
                out += "\(code(o.file)): \(text(o.failureSummary))\n\n"
                if !o.failure.isEmpty { out += fenced(o.failure) }
            }
            out += "\n"
        }
        out += "\n### Skips by reason\n\n"
        var groups: [(key: String, names: [String])] = []
        for run in document.runs {
            for o in run.result.outcomes {
                guard let why = o.skipReason else { continue }
                let reason = o.skippedFor.isEmpty ? why : "lacks " + o.skippedFor.joined(separator: ", ")
                let key = several ? "\(reason) — \(run.result.adapterName)" : reason
                if let at = groups.firstIndex(where: { $0.key == key }) {
                    groups[at].names.append(o.scenario)
                } else {
                    groups.append((key, [o.scenario]))
                }
            }
        }
        if groups.isEmpty { out += "None.\n" }
        for group in groups {
            out +=
                "- **\(text(group.key))**: \(group.names.count) scenario\(group.names.count == 1 ? "" : "s"): "
                + group.names.map(code).joined(separator: ", ") + "\n"
        }
        out += "\n### Spec rows without a passing scenario\n\n"
        var anyRow = false
        for (column, heading) in matrix.headings.enumerated() {
            let missing = matrix.rowsWithoutPass(column: column)
            guard !missing.isEmpty else { continue }
            anyRow = true
            if several { out += "**\(text(heading))**\n\n" }
            for (row, cell) in missing {
                out += "- \(code(row.id)) (\(text(row.section))): \(text(row.text)) — \(describe(cell))\n"
            }
            out += "\n"
        }
        if !anyRow {
            out +=
                document.catalogue.rows.isEmpty
                ? "The catalogue has no rows.\n" : "Every one of the \(document.catalogue.rows.count) rows has one.\n"
        }
        if several {
            out +=
                "\n### Conformance matrix\n\n| spec row | " + matrix.headings.map(cell).joined(separator: " | ")
                + " |\n"
            out += "| - |" + String(repeating: " - |", count: matrix.columns.count) + "\n"
            for (r, row) in matrix.rows.enumerated() {
                out +=
                    "| \(code(row.id)) | " + matrix.cells[r].map { cell(describe($0)) }.joined(separator: " | ")
                    + " |\n"
            }
        }
        return out
    }

    /// "fail: scenario", "skip: push (web pages receive no silent push)".
    static func describe(_ cell: ConformanceMatrix.Cell) -> String {
        switch cell.verdict {
        case .pass: return "pass"
        case .noScenario: return "no scenario"
        case .fail:
            return "fail" + (cell.outcome.map { _ in ": " + (cell.scenarios.first ?? "") } ?? "")
        case .skip(let reasons): return "skip: " + reasons.joined(separator: "; ")
        }
    }

    /// Plain text in Markdown: characters that start markup are escaped, lines joined.
    static func text(_ value: String) -> String {
        var out = ""
        for character in ReportText.oneLine(value) {
            if "\\`*_[]<>#|~".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// A table cell: escaped text.
    static func cell(_ value: String) -> String { text(value) }

    /// Inline code that survives backticks inside.
    static func code(_ value: String) -> String {
        let line = ReportText.oneLine(value).replacingOccurrences(of: "|", with: "\\|")
        let fence = String(repeating: "`", count: ReportText.longestRun(of: "`", in: line) + 1)
        let pad = line.hasPrefix("`") || line.hasSuffix("`") ? " " : ""
        return fence + pad + line + pad + fence
    }

    /// A fenced block longer than any run of backticks inside.
    static func fenced(_ value: String) -> String {
        let fence = String(repeating: "`", count: max(3, ReportText.longestRun(of: "`", in: value) + 1))
        return fence + "\n" + ReportText.printable(value) + "\n" + fence + "\n"
    }
}

/// Text from a run (scenario names, SDK answers) made safe to put in a text report.
enum ReportText {
    /// Control characters other than newline and tab written out as `\u{…}` by SafeText, the
    /// one place text is made safe to show (no terminal escapes reach a reader of the file).
    static func printable(_ value: String) -> String { SafeText.terminal(value) }

    static func oneLine(_ value: String) -> String {
        printable(value).replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\t", with: " ")
    }

    static func longestRun(of character: Character, in value: String) -> Int {
        var longest = 0
        var current = 0
        for c in value {
            current = c == character ? current + 1 : 0
            longest = max(longest, current)
        }
        return longest
    }
}
