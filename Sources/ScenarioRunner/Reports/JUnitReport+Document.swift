extension JUnitReport {
    /// A results document as JUnit: one run is exactly ``xml(_:suiteName:)``; several runs
    /// (adapters) are one `<testsuite>` each, named after the adapter.
    public static func xml(_ document: ResultDocument, suiteName: String = "lerix-mock scenarios") -> String {
        guard document.runs.count != 1 else { return xml(document.runs[0].result, suiteName: suiteName) }
        let results = document.runs.map(\.result)
        let count = results.reduce(0) { $0 + $1.outcomes.count }
        let total = results.reduce(0) { $0 + $1.outcomes.reduce(0) { $0 + $1.wallSeconds } }
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out +=
            "<testsuites tests=\"\(count)\" failures=\"\(results.reduce(0) { $0 + $1.failed })\" errors=\"\(results.reduce(0) { $0 + $1.errors })\" skipped=\"\(results.reduce(0) { $0 + $1.skipped })\" time=\"\(seconds(total))\">\n"
        for result in results {
            out += testsuite(
                result,
                name: result.adapterName.isEmpty ? suiteName : "\(suiteName): \(result.adapterName)"
            )
        }
        out += "</testsuites>\n"
        return out
    }
}
