import ScenarioRunner

/// The report files a run or a merge writes (`--junit`, `--html`, `--json`, `--markdown`):
/// every path checked before anything runs, each written whole at the end.
struct ReportOutputs {
    var junit: String?
    var html: String?
    var json: String?
    var markdown: String?

    init(_ parsed: ArgumentParser.Parsed) {
        junit = parsed.value("--junit")
        html = parsed.value("--html")
        json = parsed.value("--json")
        markdown = parsed.value("--markdown")
    }

    private var named: [(option: String, path: String)] {
        [("--junit", junit), ("--html", html), ("--json", json), ("--markdown", markdown)].compactMap { option, path in
            path.map { (option, $0) }
        }
    }

    /// Why a report cannot be written (or two options name one file), or nil.
    func problem() -> String? {
        var seen: [String: String] = [:]
        for (option, path) in named {
            if let other = seen[path] { return "\(other) and \(option) both name \(path)" }
            seen[path] = option
            if let problem = ReportFile.problem(writing: path) { return "\(option): \(problem)" }
        }
        return nil
    }

    /// Writes every report asked for; the first that cannot be written, or nil.
    func write(_ document: ResultDocument) -> String? {
        for (option, path) in named {
            let text: String
            switch option {
            case "--junit": text = JUnitReport.xml(document)
            case "--html": text = HTMLReport.html(document)
            case "--json": text = String(decoding: document.json.prettySerialized(), as: UTF8.self) + "\n"
            default: text = MarkdownReport.markdown(document)
            }
            if let problem = ReportFile.write(text, to: path) { return "\(option): \(problem)" }
        }
        return nil
    }
}
