import ScenarioLanguage

/// The runner's terminal output: one line per scenario, the report under a failed one or one in error.
public enum ConsoleReport {
    public static func line(_ o: ScenarioOutcome, verbose: Bool) -> String {
        var out: String
        switch o.status {
        case .passed: out = "PASS  \(o.scenario)"
        case .failed: out = "FAIL  \(o.scenario)"
        case .error: out = "ERROR \(o.scenario)"
        case .skipped(let why): out = "SKIP  \(o.scenario)  (\(why))"
        }
        if o.status == .passed || (o.status == .failed && o.wallSeconds > 0) {
            do {
                out +=
                    "  [\(o.file), \(TimeSyntax.relative(o.virtualMilliseconds).dropFirst()) virtual, \(JUnitReport.seconds(o.wallSeconds)) s]"
            }
        }
        if verbose, !o.log.isEmpty { out += "\n" + o.log.map { "      " + $0 }.joined(separator: "\n") }
        if o.status == .failed || o.status == .error, !o.failure.isEmpty { out += "\n" + o.failure }
        return out
    }
}
