import Foundation

extension HTMLReport {
    /// A results document as one page: one run is exactly ``html(_:title:)``; several runs
    /// (adapters) get the conformance matrix on top, each cell linked to the scenario's
    /// section below, then each run's scenarios with their timelines.
    public static func html(_ document: ResultDocument, title: String = "lerix-mock scenarios") -> String {
        guard document.runs.count != 1 else { return html(document.runs[0].result, title: title) }
        let summary = document.runs.map { "\($0.result.adapterName): \($0.result.summary)" }.joined(separator: "; ")
        var out = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>\(e(title)): \(e(summary))</title>\n<style>\n\(style)\(matrixStyle)</style>\n</head>\n<body>\n"
        out += "<header><h1>\(e(title))</h1>"
        for run in document.runs {
            out += "<p class=\"summary\">\(e(run.result.adapterName)): \(e(run.result.summary))</p>"
        }
        out += legend + "</header>\n<main>\n"
        out += matrixTable(ConformanceMatrix(document))
        for (r, run) in document.runs.enumerated() {
            out += "<h2 class=\"run\" id=\"r\(r)\">\(e(run.result.adapterName)) · \(e(run.mode.rawValue))</h2>\n"
            for (index, outcome) in run.result.outcomes.enumerated() {
                out += section(outcome, anchor: anchor(run: r, outcome: index))
            }
        }
        out += "</main>\n</body>\n</html>\n"
        return out
    }

    static func anchor(run: Int, outcome: Int) -> String { "r\(run)-s\(outcome)" }

    /// The spec × SDK table; every cell with a scenario links to it.
    static func matrixTable(_ matrix: ConformanceMatrix) -> String {
        var out = "<section class=\"matrix\" aria-labelledby=\"matrix-title\">\n"
        out += "<h2 id=\"matrix-title\">Conformance: spec rows × SDKs</h2>\n"
        out += "<table class=\"matrix\">\n<thead><tr><th scope=\"col\">spec row</th>"
        for heading in matrix.headings { out += "<th scope=\"col\">\(e(heading))</th>" }
        out += "</tr></thead>\n<tbody>\n"
        var section = ""
        for (r, row) in matrix.rows.enumerated() {
            if row.section != section {
                section = row.section
                out +=
                    "<tr class=\"section\"><th scope=\"rowgroup\" colspan=\"\(matrix.columns.count + 1)\">\(e(section))</th></tr>\n"
            }
            out += "<tr><th scope=\"row\" title=\"\(e(row.text))\"><code>\(e(row.id))</code></th>"
            for (c, cell) in matrix.cells[r].enumerated() {
                let word = cell.verdict.word
                let detail: String
                if case .skip(let reasons) = cell.verdict {
                    detail = reasons.joined(separator: "; ")
                } else {
                    detail = ""
                }
                let title =
                    cell.scenarios.isEmpty ? "no scenario covers this row" : cell.scenarios.joined(separator: ", ")
                let label = e(word) + (detail.isEmpty ? "" : "<small>\(e(detail))</small>")
                let css = word.replacingOccurrences(of: " ", with: "-")
                if let outcome = cell.outcome {
                    out +=
                        "<td class=\"cell \(css)\"><a href=\"#\(anchor(run: c, outcome: outcome))\" title=\"\(e(title))\">\(label)</a></td>"
                } else {
                    out += "<td class=\"cell \(css)\" title=\"\(e(title))\">\(label)</td>"
                }
            }
            out += "</tr>\n"
        }
        out += "</tbody>\n</table>\n</section>\n"
        return out
    }

    static let matrixStyle = """
        section.matrix { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 14px; margin: 0 0 14px; overflow-x: auto; }
        table.matrix { border-collapse: collapse; font-size: 12px; }
        table.matrix th, table.matrix td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
        table.matrix tr.section th { background: #f6f8fa; font-weight: 600; }
        td.cell a { color: inherit; text-decoration: none; display: block; }
        td.cell small { display: block; color: #57606a; font-size: 11px; max-width: 28em; }
        td.pass { background: #dafbe1; } td.fail { background: #ffebe9; color: #82071e; font-weight: 600; }
        td.skip { background: #eaeef2; } td.no-scenario { background: #fff8c5; }
        h2.run { font-size: 16px; margin: 18px 0 8px; }

        """
}
