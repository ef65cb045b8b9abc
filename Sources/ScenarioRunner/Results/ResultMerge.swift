/// `report merge`: several results files into one document. Runs of the same adapter (its
/// `hello` name and version) and mode are one run: its shards' scenarios together, in the
/// unsharded run's order (by ``ScenarioOutcome/position``), so merging a run's shards gives the
/// unsharded run's counts and verdicts. A `--failed-from` rerun's outcomes replace the ones it
/// reran. Runs of different adapters stay apart: the columns of the conformance matrix.
///
/// ```swift
/// let merged = try ResultMerge.merge([("shard-1.json", one), ("shard-2.json", two)], tool: "lerix-mock 0.1.0")
/// merged.document.runs.count     // 1
/// merged.incomplete              // [] when every shard is there
/// ```
public enum ResultMerge {
    public struct Merged: Sendable {
        public var document: ResultDocument
        /// Why the merged runs are not whole (a shard missing, fewer scenarios than planned):
        /// the report is written, and the merge is not green.
        public var incomplete: [String]
    }

    public static func merge(
        _ files: [(file: String, document: ResultDocument)],
        tool: String
    ) throws(ResultFileError)
        -> Merged
    {
        guard let first = files.first else { throw ResultFileError("no results files to merge") }
        for (file, document) in files.dropFirst()
        where document.catalogue.rows.map(\.id) != first.document.catalogue.rows.map(\.id) {
            throw ResultFileError(
                "\(file) cites another spec catalogue than \(first.file) (\(document.catalogue.rows.count) rows against \(first.document.catalogue.rows.count)): merge runs of one catalogue"
            )
        }
        struct Key: Hashable {
            var adapter: AdapterIdentity
            var mode: RunRecord.Mode
        }
        var order: [Key] = []
        var groups: [Key: [(file: String, run: RunRecord)]] = [:]
        for (file, document) in files {
            for run in document.runs {
                let key = Key(adapter: run.adapter, mode: run.mode)
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append((file, run))
            }
        }
        var runs: [RunRecord] = []
        var incomplete: [String] = []
        for key in order {
            let (run, problems) = try combine(groups[key] ?? [])
            runs.append(run)
            incomplete += problems
        }
        return Merged(
            document: ResultDocument(tool: tool, catalogue: first.document.catalogue, runs: runs),
            incomplete: incomplete
        )
    }

    /// One adapter's records (shards, reruns) as one run.
    static func combine(_ records: [(file: String, run: RunRecord)]) throws(ResultFileError) -> (RunRecord, [String]) {
        let name =
            records[0].run.result.adapterName.isEmpty ? records[0].run.mode.rawValue : records[0].run.result.adapterName
        var problems: [String] = []
        var byName: [String: (file: String, outcome: ScenarioOutcome)] = [:]
        var shardFiles: [Shard: String] = [:]
        var totals = Set<Int>()
        for (file, run) in records where !run.rerun {
            for shard in run.shards {
                if let other = shardFiles[shard] {
                    throw ResultFileError(
                        "\(name): shard \(shard) is in both \(other) and \(file): give each shard's file once"
                    )
                }
                shardFiles[shard] = file
                totals.insert(shard.total)
            }
            for outcome in run.result.outcomes {
                if let other = byName[outcome.scenario] {
                    throw ResultFileError(
                        "\(name): scenario '\(outcome.scenario)' is in both \(other.file) and \(file): give each shard's file once (a rerun's file, written with --failed-from, may repeat it)"
                    )
                }
                byName[outcome.scenario] = (file, outcome)
            }
        }
        if totals.count > 1 {
            throw ResultFileError(
                "\(name): the files are shards of different splits (\(totals.sorted().map { "of \($0)" }.joined(separator: ", "))): merge the shards of one run"
            )
        }
        if let total = totals.first {
            let missing = (1...total).filter { index in !shardFiles.keys.contains { $0.index == index } }
            if !missing.isEmpty {
                problems.append(
                    "\(name): shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(total)" }.joined(separator: ", ")) missing: its scenarios are not in the report"
                )
            }
            if records.contains(where: { !$0.run.rerun && $0.run.shards.isEmpty }) {
                throw ResultFileError("\(name): an unsharded run cannot be merged with shards of one")
            }
        }
        // A rerun's verdict replaces the one it reran, in that one's place (positions are of the
        // suite as it was then); a file in error then may be a scenario now.
        for (file, run) in records where run.rerun {
            for var outcome in run.result.outcomes {
                let replaced =
                    byName[outcome.scenario] ?? byName[outcome.file].flatMap { $0.outcome.status == .error ? $0 : nil }
                if let replaced {
                    outcome.position = replaced.outcome.position
                    byName[replaced.outcome.scenario] = nil
                }
                byName[outcome.scenario] = (file, outcome)
            }
        }
        let normal = records.filter { !$0.run.rerun }.map(\.run)
        let base = normal.first ?? records[0].run
        var result = SuiteResult(
            outcomes: byName.values.map(\.outcome).sorted { ($0.position, $0.scenario) < ($1.position, $1.scenario) },
            adapterName: base.result.adapterName
        )
        result.adapter = base.adapter
        result.planned = normal.map(\.result.planned).max() ?? base.result.planned
        if problems.isEmpty, !normal.isEmpty, result.outcomes.count < result.planned {
            problems.append(
                "\(name): \(result.outcomes.count) of the \(result.planned) scenarios planned are in the files: merge every shard's file"
            )
        }
        if Set(normal.map(\.seed)).count > 1 {
            problems.append("\(name): the files ran with different --seed values, so they are not one run")
        }
        let merged = RunRecord(
            mode: base.mode,
            seed: base.seed,
            jobs: records.map(\.run.jobs).max() ?? 1,
            command: base.command,
            shards: shardFiles.keys.sorted { $0.index < $1.index },
            rerun: normal.isEmpty,
            // Shards run side by side on CI machines: the merged run took as long as the longest.
            wallSeconds: records.map(\.run.wallSeconds).max() ?? 0,
            result: result
        )
        return (merged, problems)
    }
}
