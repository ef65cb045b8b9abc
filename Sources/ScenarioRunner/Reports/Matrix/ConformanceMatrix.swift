import ScenarioLanguage

/// Spec rows × SDKs: for each catalogue row and each run (one adapter), whether the scenarios
/// that cover the row passed there. The page a release manager reads to know which SDKs meet
/// the spec today (`scenarios --adapter A --adapter B`, `report merge`).
///
/// A cell fails when any covering scenario failed or was in error, passes when the rest
/// passed (some may be skipped), is skipped with the spec's reasons when every covering
/// scenario was skipped, and says "no scenario" when the run has none covering the row.
///
/// ```swift
/// let matrix = ConformanceMatrix(document)
/// matrix.cells[0][1].verdict      // .skip(["push (web pages receive no silent push)"])
/// ```
public struct ConformanceMatrix: Sendable {
    public enum Verdict: Sendable, Equatable {
        case pass
        case fail
        case skip([String])
        case noScenario

        public var word: String {
            switch self {
            case .pass: return "pass"
            case .fail: return "fail"
            case .skip: return "skip"
            case .noScenario: return "no scenario"
            }
        }
    }

    public struct Cell: Sendable {
        public var verdict: Verdict
        /// The outcome the cell links to (the first failing, else passing, else skipped one),
        /// as an index into its run's outcomes.
        public var outcome: Int?
        /// Names of every covering scenario, for the cell's title.
        public var scenarios: [String]
    }

    public var rows: [SpecCatalogue.Row]
    public var columns: [AdapterIdentity]
    /// `cells[row][column]`.
    public var cells: [[Cell]]

    public init(_ document: ResultDocument) {
        rows = document.catalogue.rows
        columns = document.runs.map(\.adapter)
        cells = rows.map { row in
            document.runs.map { run in Self.cell(row: row.id, outcomes: run.result.outcomes) }
        }
    }

    static func cell(row: String, outcomes: [ScenarioOutcome]) -> Cell {
        let covering = outcomes.indices.filter { outcomes[$0].covers.contains(row) }
        let names = covering.map { outcomes[$0].scenario }
        if let bad = covering.first(where: { outcomes[$0].status == .failed || outcomes[$0].status == .error }) {
            return Cell(verdict: .fail, outcome: bad, scenarios: names)
        }
        if let good = covering.first(where: { outcomes[$0].status == .passed }) {
            return Cell(verdict: .pass, outcome: good, scenarios: names)
        }
        guard let first = covering.first else { return Cell(verdict: .noScenario, outcome: nil, scenarios: []) }
        var reasons: [String] = []
        for index in covering {
            let why =
                outcomes[index].skippedFor.isEmpty ? [outcomes[index].skipReason ?? ""] : outcomes[index].skippedFor
            for reason in why where !reasons.contains(reason) { reasons.append(reason) }
        }
        return Cell(verdict: .skip(reasons), outcome: first, scenarios: names)
    }

    /// Column headings: the adapter's name and version, made unique when two runs share them.
    public var headings: [String] {
        var seen: [String: Int] = [:]
        return columns.map { adapter in
            let base = adapter.display.isEmpty ? "adapter" : adapter.display
            seen[base, default: 0] += 1
            return seen[base] == 1 ? base : "\(base) (\(seen[base]!))"
        }
    }

    /// Rows without a passing cell in the given column.
    public func rowsWithoutPass(column: Int) -> [(row: SpecCatalogue.Row, cell: Cell)] {
        rows.indices.filter { cells[$0][column].verdict != .pass }.map { (rows[$0], cells[$0][column]) }
    }
}
