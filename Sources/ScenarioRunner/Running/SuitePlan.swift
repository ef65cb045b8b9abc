import ScenarioLanguage

/// What one run executes, in order: the files in error, then the scenarios `--filter` and
/// `--tag` select, each with its position in the whole selection; then `--failed-from` and
/// `--shard` pick from it. Positions are kept, so a shard's, a rerun's or a worker's outcomes
/// sort back into the serial run's order.
struct SuitePlan {
    var brokenFiles: [(position: Int, file: ScenarioFileErrors)] = []
    var scenarios: [(position: Int, scenario: Scenario)] = []
    /// Items of the whole selection, before a shard or rerun picked from it.
    var planned = 0

    init(suite: ScenarioSuite, options: SuiteOptions) {
        let selected = suite.selected(filter: options.filter, tags: options.tags)
        planned = suite.brokenFiles.count + selected.count
        var broken = Array(suite.brokenFiles.enumerated())
        var chosen = selected.enumerated().map { (suite.brokenFiles.count + $0.offset, $0.element) }
        if let only = options.only {
            broken = broken.filter { only.contains($0.element.file) }
            chosen = chosen.filter { only.contains($0.1.name) || only.contains($0.1.file) }
        }
        if let shard = options.shard, shard.total > 1 {
            let keys = broken.map(\.element.file) + chosen.map(\.1.name)
            let assigned = ShardPlan.assign(keys, shards: shard.total, timings: options.timings)
            let mine = Set(keys.indices.filter { assigned[$0] == shard.index - 1 })
            let brokenCount = broken.count
            broken = broken.enumerated().filter { mine.contains($0.offset) }.map(\.element)
            chosen = chosen.enumerated().filter { mine.contains(brokenCount + $0.offset) }.map(\.element)
        }
        brokenFiles = broken.map { ($0.offset, $0.element) }
        scenarios = chosen.map { ($0.0, $0.1) }
    }
}
