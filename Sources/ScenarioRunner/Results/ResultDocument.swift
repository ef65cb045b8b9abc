import JSON
import ScenarioLanguage

/// A results file (`scenarios --json FILE`, `report merge`): one or more runs, each one adapter's
/// outcomes, with the spec catalogue their `covers` ids come from. The format is versioned and
/// described in docs/scenario-results.md, with a JSON Schema (docs/scenario-results.schema.json)
/// that every file read is checked against first.
///
/// ```swift
/// let document = ResultDocument(tool: "lerix-mock 0.1.0", catalogue: suite.catalogue, runs: [run])
/// try document.json.prettySerialized()          // what --json writes
/// let again = try ResultDocument.parse(bytes, file: "shard-1.json")
/// ```
public struct ResultDocument: Sendable {
    public static let format = "lerix-mock/scenario-results"
    public static let formatVersion = 1

    /// The lerix-mock that wrote it (`lerix-mock 0.1.0`).
    public var tool: String
    public var catalogue: SpecCatalogue
    public var runs: [RunRecord]

    public init(tool: String, catalogue: SpecCatalogue, runs: [RunRecord]) {
        self.tool = tool
        self.catalogue = catalogue
        self.runs = runs
    }
}

/// One adapter's run of a suite (or the shards of one, merged).
public struct RunRecord: Sendable {
    public enum Mode: String, Sendable {
        /// The in-process server and Swift SDK host.
        case inProcess = "in-process"
        /// `--adapter CMD` against the runner's own loopback server.
        case adapter
        /// `--server URL`, with the in-process Swift host or an `--adapter`.
        case server
    }

    public var mode: Mode
    public var seed: UInt64
    /// Workers (`--jobs`).
    public var jobs: Int
    /// The adapter command, when one was spawned.
    public var command: String?
    /// The shards this record holds: one for a sharded run, several once merged, none when unsharded.
    public var shards: [Shard]
    /// `--failed-from` picked the scenarios.
    public var rerun: Bool
    /// Wall time of the whole run (workers overlap, so less than the scenarios' sum).
    public var wallSeconds: Double
    public var result: SuiteResult

    public init(
        mode: Mode,
        seed: UInt64,
        jobs: Int = 1,
        command: String? = nil,
        shards: [Shard] = [],
        rerun: Bool = false,
        wallSeconds: Double = 0,
        result: SuiteResult
    ) {
        self.mode = mode
        self.seed = seed
        self.jobs = jobs
        self.command = command
        self.shards = shards
        self.rerun = rerun
        self.wallSeconds = wallSeconds
        self.result = result
    }

    public var adapter: AdapterIdentity { result.adapter }
}

/// A results file that cannot be used, said with the file and where in it.
public struct ResultFileError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
