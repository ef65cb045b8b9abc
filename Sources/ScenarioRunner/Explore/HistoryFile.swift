import JSON
import MockServer

/// A shrunk history written as a scenario file in the `Scenarios/` format: its moves up to the
/// one that failed, then an `expect` of what the reference showed (or the property demands),
/// `covers` naming the spec rows, and a comment with the seed to replay it.
///
/// ```swift
/// let text = HistoryFile.text(history, finding: finding, judgedBy: "the Swift SDK (web)", command: "lerix-mock explore --seed 7")
/// ```
public enum HistoryFile {
    public static func text(_ history: History, finding: Finding, judgedBy: String, command: String) -> String {
        let (renamed, names) = history.renumberingRules()
        var finding = finding
        finding.expected = Self.renaming(finding.expected, names)
        let history = renamed
        var moves = Array(history.moves.prefix(finding.step + 1))
        if let split = finding.splitAt, case .after(let ms)? = moves.last {
            let start = history.virtualMillisecondsBefore(step: finding.step)
            let first = split - start
            if first > 0, first <= ms { moves[moves.count - 1] = .after(milliseconds: first) }
        }
        var expectation = JSONObject()
        if let server = finding.expectedServer {
            expectation = server
        } else {
            expectation["device"] = .string(History.device)
            for (k, v) in finding.expected { expectation[k] = v }
        }

        var device: [(String, JSON)] = [
            ("platform", .string(history.platform)), ("app_version", history.appVersion.map(JSON.string) ?? .null),
        ]
        if history.flavor != "native" { device.insert(("flavor", .string(history.flavor)), at: 1) }
        if let build = history.build { device.append(("build", .string(build))) }
        if history.push { device.append(("push", true)) }
        if history.clockOffsetSeconds != 0 {
            device.append(("clock_offset", .string(FlowYAML.duration(history.clockOffsetSeconds * 1000, signed: true))))
        }
        var lines: [String] = []
        lines.append("# Found by `\(command)`: history \(history.seed):\(history.run)")
        lines.append("# (replay it with `--replay \(history.seed):\(history.run)`), shrunk to \(moves.count) moves.")
        lines.append("# Judge: \(finding.judge); expectations from \(judgedBy).")
        lines.append("# \(finding.message.replacingNewlines())")
        lines.append("name: " + FlowYAML.scalar("explore \(history.seed):\(history.run) \(finding.signature)"))
        lines.append("tags: [explore]")
        lines.append("covers: " + FlowYAML.text(.array(finding.covers.map(JSON.string))))
        lines.append("devices:")
        lines.append("  \(History.device): " + FlowYAML.text(.object(device)))
        lines.append("steps:")
        for move in moves { lines.append("  - " + move.yaml) }
        lines.append(
            "  - \(finding.expectedServer == nil ? "expect" : "expect_server"): " + FlowYAML.text(.object(expectation))
        )
        return lines.joined(separator: "\n") + "\n"
    }
}

extension HistoryFile {
    /// The first lines of a file explore could not verify (it did not fail on the SDK under
    /// test, or did not pass on the reference, when run as a scenario): read before keeping it.
    public static func unverifiedHeader(_ why: String) -> String {
        "# NOT VERIFIED: \(why.replacingNewlines())\n"
            + "# Not a regression test as written: run it on both SDKs and correct it before adding it to Scenarios/.\n"
    }

    /// `rule:` values in an expectation under the rules' new names.
    static func renaming(_ object: JSONObject, _ names: [String: String]) -> JSONObject {
        func fix(_ value: JSON, key: String?) -> JSON {
            switch value {
            case .object(let o):
                var out = JSONObject()
                for (k, v) in o { out[k] = fix(v, key: k) }
                return .object(out)
            case .array(let items): return .array(items.map { fix($0, key: key) })
            case .string(let s) where key == "rule": return .string(names[s] ?? s)
            default: return value
            }
        }
        return fix(.object(object), key: nil).objectValue ?? object
    }
}

extension History {
    /// The history with its rules named `r1`, `r2` … in the order a shrunk history creates
    /// them (a shrunk file that creates only `r5` reads oddly), and the old-to-new names.
    func renumberingRules() -> (History, [String: String]) {
        var names: [String: String] = [:]
        var out = self
        out.moves = moves.map { move in
            switch move {
            case .createRule(let name, let body):
                let new = "r\(names.count + 1)"
                names[name] = new
                return .createRule(name: new, body: body)
            case .updateRule(let name, let fields): return .updateRule(name: names[name] ?? name, fields: fields)
            case .deleteRule(let name): return .deleteRule(name: names[name] ?? name)
            default: return move
            }
        }
        return (out, names)
    }

    /// Virtual time when move `step` starts.
    func virtualMillisecondsBefore(step: Int) -> Int64 {
        moves.prefix(step).reduce(0) { total, move in
            if case .after(let ms) = move { return total + ms }
            return total
        }
    }
}

extension String {
    func replacingNewlines() -> String {
        String(map { $0 == "\n" ? " " : $0 })
    }
}
