import Dispatch
import JSON

/// The durable engine under ``SQLiteStateStore``: one SQLite file of projects, rules, changes,
/// push tokens, pushes, ingest counts and the seed, written with group commit (``GroupCommitter``).
/// It speaks rows of JSON (`StoredEvent`, `StoredState`); the store maps MockServer's types onto them.
///
/// ```swift
/// let file = try StateFile.open(path: "state.db", seed: StoredState(seed: config, projects: []))
/// try file.write([.ruleDeleted(project: "demo", id: "r1")])
/// file.close()
/// ```
final class StateFile: Sendable {
    /// The state file's path, as given.
    let path: String
    /// True when this `open` created the file from the seed; false when it loaded an existing one.
    let created: Bool
    /// What the file held when it was opened (for a new file: the seed, as written).
    let initialState: StoredState

    private let committer: GroupCommitter

    private init(path: String, created: Bool, initialState: StoredState, committer: GroupCommitter) {
        self.path = path
        self.created = created
        self.initialState = initialState
        self.committer = committer
    }

    /// Opens the state file, or creates it holding `seed` when `path` does not exist (or is an
    /// empty file). An existing file is loaded as it is and `seed` is not used; the file keeps the
    /// seed it was created with, which `initialState.seed` answers for `POST /admin/reset`.
    ///
    /// Refuses, leaving the file as it was: bytes that are not SQLite, another program's SQLite
    /// file, a damaged file, a file from a newer lerix-mock, a file another process holds.
    static func open(
        path: String,
        seed: StoredState,
        durability: StateDurability = .default,
        validate: (StoredState) throws(StateFileError) -> Void = { _ throws(StateFileError) in }
    ) throws(StateFileError) -> StateFile {
        let (database, created) = try StateDatabase.open(
            path: path,
            seed: seed,
            durability: durability,
            validate: validate
        )
        let state = try database.load()
        let committer = GroupCommitter(
            database: database,
            checkpointAfter: durability.syncsEachCommit || database.connection.isReadOnly
                ? nil : StateDatabase.logFramesPerCheckpoint
        )
        return StateFile(path: path, created: created, initialState: state, committer: committer)
    }

    /// Commits `events` in one transaction and returns once they are durable.
    /// Blocks the calling thread for one commit (shared with writers that arrive meanwhile).
    func write(_ events: [StoredEvent]) throws(StateStoreError) {
        try committer.write(events)
    }

    /// Puts `events` in line and returns at once; `wait(for:)` returns once they are durable.
    /// Writes commit in the order they were enqueued.
    func enqueue(_ events: [StoredEvent]) -> GroupCommitter.Pending {
        committer.enqueue(events)
    }

    /// A pipelined write (see ``GroupCommitter``): true when the caller must run ``drain()``.
    func enqueue(_ events: [StoredEvent], chain: UInt64, whenDone: @escaping @Sendable ((any Error)?) -> Void) -> Bool {
        committer.enqueue(events, chain: chain, whenDone: whenDone)
    }

    /// Commits what pipelined writes queued, until nothing is left, on the background queue.
    func drainInBackground() {
        committer.drainInBackground()
    }

    /// Commits what pipelined writes queued on the caller's thread while the file is free, the
    /// rest in the background (see ``GroupCommitter/drainWithoutWaiting()``).
    func drainWithoutWaiting() {
        committer.drainWithoutWaiting()
    }

    /// The newest chain of pipelined writes that broke (0: none); see ``GroupCommitter``.
    var brokenChain: UInt64 { committer.brokenChain }

    func wait(for pending: GroupCommitter.Pending) throws(StateStoreError) {
        try committer.wait(for: pending)
    }

    /// Reads the whole file as it is now (after every write that returned before this call). Works
    /// when the disk refuses writes, so a server can re-sync its memory after a failed write.
    func loadSnapshot() throws(StateStoreError) -> StoredState {
        let path = self.path
        let result: Result<StoredState, StateStoreError>? = committer.read {
            database -> Result<StoredState, StateStoreError> in
            do {
                return .success(try database.load())
            } catch {
                return .failure(.readFailed(path: path, detail: "\(error)"))
            }
        }
        guard let result else { throw .closed(path: path) }
        return try result.get()
    }

    /// Closes the file once the running commit is done. Later writes fail with `.closed`.
    func close() {
        committer.close()
    }

    /// The most writes one commit has carried so far (1 means no batching happened yet).
    var largestBatch: Int { committer.largestBatch }

    deinit {
        committer.close()
    }

    /// Runs `body` with the file to itself, between commits; nil once closed (tests only).
    func readForTesting<T: Sendable>(_ body: (StateDatabase) -> T) -> T? {
        committer.read(body)
    }

    /// How many writes wait for the file right now (tests only).
    var queuedForTesting: Int { committer.queued }

    /// Caps the file at its current size, as a full disk would (tests only).
    func limitGrowthForTesting() {
        _ = committer.read { database in
            (try? database.connection.execute("PRAGMA max_page_count = 1")) != nil
        }
    }

    /// Makes every later write fail as on a read-only file (tests only).
    func refuseWritesForTesting() {
        _ = committer.read { database in
            (try? database.connection.execute("PRAGMA query_only = ON")) != nil
        }
    }

    /// Holds the file until `release` is signalled, so writes started meanwhile queue up and
    /// commit as one batch (tests only). Returns once the file is held.
    func holdWriterForTesting(until release: DispatchSemaphore) {
        let held = DispatchSemaphore(value: 0)
        let committer = self.committer
        DispatchQueue.global().async {
            _ = committer.read { _ in
                held.signal()
                release.wait()
                return true
            }
        }
        held.wait()
    }
}
