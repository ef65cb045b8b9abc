/// Every problem found while reading one file, so a file with five mistakes takes one run
/// to fix, not five. Parsing records a problem and goes on with the next part (the next key,
/// device, rule or step); the same problem at the same place is kept once (a fleet of 1,000
/// devices repeats its entry's mistake 1,000 times).
final class Diagnostics {
    private(set) var errors: [ScenarioError] = []
    private var seen: Set<String> = []

    func record(_ error: ScenarioError) {
        guard seen.insert(error.description).inserted else { return }
        errors.append(error)
    }

    /// Runs one independent part of the parse; a problem it throws is recorded and nil returned.
    func attempt<T>(_ part: () throws(ScenarioError) -> T) -> T? {
        do {
            return try part()
        } catch {
            record(error)
            return nil
        }
    }

    /// The problems in file order (line, then column), as a reader fixes them.
    var sorted: [ScenarioError] {
        errors.enumerated().sorted { a, b in
            let (x, y) = (a.element.location.mark, b.element.location.mark)
            return (x.line, x.column, a.offset) < (y.line, y.column, b.offset)
        }.map(\.element)
    }
}
