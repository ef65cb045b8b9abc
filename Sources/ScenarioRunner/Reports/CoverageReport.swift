import ScenarioLanguage

/// Which spec catalogue rows the scenarios pin, and which none does.
///
/// ```
/// spec coverage: 31 of 32 rows have scenarios
///   ✓ check.app-start          app-start.yaml, cold-start-offline.yaml
///   ✗ push.no-web              (no scenario)
/// ```
public enum CoverageReport {
    public static func text(catalogue: SpecCatalogue, scenarios: [Scenario]) -> String {
        var byRow: [String: [String]] = [:]
        for s in scenarios {
            let short = s.file.split(separator: "/").last.map(String.init) ?? s.file
            for id in s.covers { byRow[id, default: []].append(short) }
        }
        let covered = catalogue.rows.filter { byRow[$0.id] != nil }.count
        var out = "spec coverage: \(covered) of \(catalogue.rows.count) rows have scenarios\n"
        let width = (catalogue.rows.map(\.id.count).max() ?? 0) + 2
        var section = ""
        for row in catalogue.rows {
            if row.section != section {
                section = row.section
                out += "\n\(section)\n"
            }
            let pad = String(repeating: " ", count: max(1, width - row.id.count))
            if let files = byRow[row.id] {
                out += "  ✓ \(row.id)\(pad)\(files.sorted().joined(separator: ", "))\n"
            } else {
                out += "  ✗ \(row.id)\(pad)(no scenario) \(row.text)\n"
            }
        }
        let uncovered = catalogue.rows.filter { byRow[$0.id] == nil }
        if !uncovered.isEmpty {
            out += "\nwithout scenarios: \(uncovered.map(\.id).joined(separator: ", "))\n"
        }
        return out
    }

    /// Rows no scenario covers.
    public static func uncovered(catalogue: SpecCatalogue, scenarios: [Scenario]) -> [String] {
        let covered = Set(scenarios.flatMap(\.covers))
        return catalogue.rows.map(\.id).filter { !covered.contains($0) }
    }
}
