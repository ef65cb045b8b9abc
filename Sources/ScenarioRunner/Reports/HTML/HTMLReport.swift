import ScenarioLanguage

/// `--html FILE`: one self-contained page (inline CSS and SVG, no script, no outside URL)
/// with a summary and, per scenario, its timeline over virtual time and, when it failed,
/// the failing step with expected vs seen.
///
/// ```swift
/// let page = HTMLReport.html(result)     // write it anywhere; it needs nothing beside it
/// ```
public enum HTMLReport {
    public static func html(_ result: SuiteResult, title: String = "lerix-mock scenarios") -> String {
        var out = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<meta name=\"generator\" content=\"lerix-mock \(e(Release.version))\">\n"
        out += "<title>\(e(title)): \(e(result.summary))</title>\n<style>\n\(style)</style>\n</head>\n<body>\n"
        out += "<header><h1>\(e(title))</h1><p class=\"summary\">\(e(result.summary))"
        if !result.adapterName.isEmpty { out += " · adapter \(e(result.adapterName))" }
        out += " · lerix-mock \(e(Release.version))"
        out += "</p>\n"
        let failed = result.outcomes.enumerated().filter { $0.element.status == .failed || $0.element.status == .error }
        if !failed.isEmpty {
            out += "<nav aria-label=\"Failed scenarios\"><strong>Failed:</strong><ul>"
            for (index, outcome) in failed { out += "<li><a href=\"#s\(index)\">\(e(outcome.scenario))</a></li>" }
            out += "</ul></nav>\n"
        }
        out += legend + "</header>\n<main>\n"
        for (index, outcome) in result.outcomes.enumerated() { out += section(outcome, anchor: "s\(index)") }
        out += "</main>\n</body>\n</html>\n"
        return out
    }

    /// One scenario; `anchor` is its element id (links from the failure list and the matrix).
    static func section(_ outcome: ScenarioOutcome, anchor index: String) -> String {
        let status: String
        switch outcome.status {
        case .passed: status = "passed"
        case .failed: status = "failed"
        case .error: status = "error"
        case .skipped: status = "skipped"
        }
        var out = "<section class=\"scenario \(status)\" id=\"\(index)\" aria-labelledby=\"\(index)-title\">\n"
        out +=
            "<h2 id=\"\(index)-title\"><span class=\"badge \(status)\">\(status)</span> \(e(outcome.scenario))</h2>\n"
        out +=
            "<p class=\"meta\">\(e(outcome.file)) · \(e(TimeSyntax.relative(outcome.virtualMilliseconds).dropFirst())) of virtual time in \(String(format1(outcome.wallSeconds))) s"
        if !outcome.covers.isEmpty { out += " · covers \(e(outcome.covers.joined(separator: ", ")))" }
        out += "</p>\n"
        if case .skipped(let why) = outcome.status { out += "<p class=\"skipped\">Skipped: \(e(why))</p>\n" }
        if let timeline = outcome.timeline {
            if let sampled = timeline.sampledPerLane {
                out +=
                    "<p class=\"note\">Large fleet: each group is one lane; screen states are sampled from \(sampled) of its devices, checks are counted for all.</p>\n"
            }
            out += "<figure>" + TimelineSVG.svg(timeline, title: outcome.scenario) + "</figure>\n"
        }
        if outcome.status == .failed || outcome.status == .error {
            out += "<div class=\"failure-box\" role=\"group\" aria-label=\"Failure\">"
            if let failure = outcome.timeline?.failure {
                out +=
                    "<p><strong>✘ Step \(failure.step)</strong> at \(e(TimeSyntax.relative(failure.at))) (\(e(failure.location))): <code>\(e(failure.text))</code></p>"
                out += "<pre class=\"expected-seen\">\(e(failure.message))</pre>"
            }
            out +=
                "<details\(outcome.timeline?.failure == nil ? " open" : "")><summary>Full report</summary><pre>\(e(outcome.failure))</pre></details></div>\n"
        }
        out += "</section>\n"
        return out
    }

    static func format1(_ seconds: Double) -> String {
        let tenths = Int((seconds * 100).rounded())
        return "\(tenths / 100).\(String(String(tenths % 100 + 100).dropFirst()))"
    }

    static func e(_ text: String) -> String { SafeText.xml(text) }
    static func e(_ text: Substring) -> String { SafeText.xml(String(text)) }

    static let legend = """
        <ul class="legend" aria-label="Legend">
        <li><svg width="14" height="10" aria-hidden="true"><rect class="state state-required_update" width="14" height="10"/></svg> required update</li>
        <li><svg width="14" height="10" aria-hidden="true"><rect class="state state-maintenance" width="14" height="10"/></svg> maintenance</li>
        <li><svg width="14" height="10" aria-hidden="true"><rect class="state state-optional_update" width="14" height="10"/></svg> optional update</li>
        <li><svg width="14" height="10" aria-hidden="true"><rect class="state state-none" width="14" height="10"/></svg> no prompt</li>
        <li><svg width="14" height="10" aria-hidden="true"><rect class="offline" width="14" height="5" y="3"/></svg> offline</li>
        <li><svg width="10" height="10" aria-hidden="true"><circle class="check s200" cx="5" cy="5" r="4"/></svg> check 200</li>
        <li><svg width="10" height="10" aria-hidden="true"><circle class="check s304" cx="5" cy="5" r="4"/></svg> 304</li>
        <li><svg width="10" height="10" aria-hidden="true"><circle class="check serr" cx="5" cy="5" r="4"/></svg> error</li>
        <li><svg width="10" height="8" aria-hidden="true"><path class="push-received" d="M1 1h8l-4 6z"/></svg> push received</li>
        <li><svg width="10" height="8" aria-hidden="true"><path class="push-missed" d="M1 1h8l-4 6z"/></svg> push missed</li>
        <li><svg width="14" height="14" aria-hidden="true"><path class="change" d="M7 1l6 6l-6 6l-6 -6z"/></svg> server change</li>
        <li><svg width="6" height="14" aria-hidden="true"><rect class="push-sent" x="2" width="2" height="14"/></svg> push sent</li>
        </ul>

        """

    static let style = """
        body { font: 14px system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1f24; margin: 0; background: #f6f8fa; }
        header { background: #24292f; color: #fff; padding: 12px 20px; }
        header h1 { margin: 0 0 4px; font-size: 18px; }
        header a { color: #9cd1ff; }
        header nav ul { display: inline; padding: 0; margin: 0 0 0 6px; }
        header nav li { display: inline; margin-right: 10px; }
        .summary { margin: 0 0 6px; }
        .legend { list-style: none; padding: 4px 10px; margin: 8px 0 0; display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 12px; color: #1b1f24; background: #fff; border-radius: 6px; }
        main { padding: 12px 20px 40px; }
        section.scenario { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 14px; margin: 0 0 14px; }
        section.scenario.failed, section.scenario.error { border-color: #cf222e; box-shadow: 0 0 0 1px #cf222e; }
        section h2 { font-size: 15px; margin: 2px 0 4px; }
        .badge { font-size: 11px; border-radius: 10px; padding: 1px 8px; color: #fff; vertical-align: 2px; }
        .badge.passed { background: #1a7f37; } .badge.failed { background: #cf222e; } .badge.skipped { background: #57606a; } .badge.error { background: #9a6700; }
        .meta, .note, .skipped { color: #57606a; margin: 0 0 6px; font-size: 12px; }
        figure { margin: 0; }
        svg.timeline { display: block; max-width: 1160px; font-size: 11px; }
        svg .label { font-weight: 600; fill: #1b1f24; }
        svg .sub { fill: #57606a; font-size: 10px; }
        .track { fill: #f6f8fa; }
        .state-none { fill: #dafbe1; } .state-optional_update { fill: #fff1a8; } .state-maintenance { fill: #ffc680; }
        .state-required_update { fill: #ffaba8; } .state-unknown { fill: #eaeef2; }
        .offline { fill: #24292f; opacity: 0.75; }
        .check { stroke: #fff; stroke-width: 0.8; } .s200 { fill: #1a7f37; } .s304 { fill: #0969da; } .serr { fill: #cf222e; }
        .push-received { fill: #8250df; } .push-missed { fill: none; stroke: #8250df; stroke-width: 1.2; }
        .push-sent { fill: #8250df; } .change { fill: #0550ae; }
        .axis line { stroke: #8c959f; } .axis text { fill: #57606a; font-size: 10px; }
        .failure line { stroke: #cf222e; stroke-width: 2; } .failure text { fill: #cf222e; font-weight: 700; }
        .failure-box { border: 1px solid #e9a5aa; background: #ffebe9; border-radius: 6px; padding: 6px 10px; margin-top: 8px; }
        .failure-box p { margin: 4px 0; }
        pre { white-space: pre-wrap; font: 12px ui-monospace, "DejaVu Sans Mono", monospace; margin: 4px 0; }
        .expected-seen { color: #82071e; font-weight: 600; }

        """
}
