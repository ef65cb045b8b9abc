import JSON
import MockServer

/// MockServer's ``StateStore`` on an SQLite file: what `serve --state FILE` runs on.
///
/// Every acknowledged write reaches `apply` before its 2xx and returns only once committed
/// (WAL; see ``StateDurability`` for the synchronous level). Checks never come here: MockServer
/// answers them from memory. The file also keeps the seed it was created from, so
/// `POST /admin/reset` returns to that seed after a restart, with or without `--config`.
///
/// Precedence: an existing file is loaded as it is and `seed` is ignored; a missing (or empty)
/// file is created holding `seed`, both as the seed and as the starting state.
///
/// ```swift
/// let store = try SQLiteStateStore.open(path: "state.db", seed: configSeed ?? .defaultSeed)  // throws(StateFileError)
/// var options = MockServerOptions(store: store)
/// options.seed = store.seed            // the file's seed wins over --config for an existing file
/// let server = try MockServer(options: options)
/// ```
public final class SQLiteStateStore: StateStore {
    private let file: StateFile
    private let snapshot: StateSnapshot

    /// The state file's path, as given.
    public var path: String { file.path }
    /// True when `open` created the file (from `seed`); false when it loaded an existing one.
    public var created: Bool { file.created }
    /// The seed `POST /admin/reset` returns to: the one the file was created with.
    public let seed: StateSnapshot

    private init(file: StateFile, snapshot: StateSnapshot, seed: StateSnapshot) {
        self.file = file
        self.snapshot = snapshot
        self.seed = seed
    }

    /// Opens `path`, or creates it holding `seed` when it does not exist or is empty.
    ///
    /// Refuses with a message that names the file, leaving it as it was: bytes that are not
    /// SQLite, another program's SQLite file, a damaged file, a file from a newer lerix-mock, a
    /// file another process has open, contents that no longer read back as a valid state.
    public static func open(
        path: String, seed: StateSnapshot, durability: StateDurability = .default
    ) throws(StateFileError) -> SQLiteStateStore {
        let file = try StateFile.open(path: path, seed: StoredState(seed: seed.json, projects: seed.storedProjects), durability: durability)
        do {
            let stored = file.initialState
            let snapshot = try StateSnapshot.restoring(stored.projects, path: path)
            let storedSeed = try stored.seed.map { json throws(StateFileError) in
                try StateSnapshot.restoring(json, what: "the stored seed", path: path)
            } ?? seed
            return SQLiteStateStore(file: file, snapshot: snapshot, seed: storedSeed)
        } catch {
            file.close()
            throw error
        }
    }

    /// The state as the file held it when opened. Never nil: a new file already holds the seed.
    public func load() throws -> StateSnapshot? {
        snapshot
    }

    /// Commits `events` in one transaction and returns once they are durable.
    /// Throws ``StateStoreError`` when the disk refuses (MockServer answers 503; nothing changes).
    public func apply(_ events: [StateEvent]) throws(StateStoreError) {
        try file.write(events.map(\.stored))
    }

    /// Two-phase writing, for a caller that serialises its writers (as MockServer does) but
    /// wants them to share commits: `enqueue` where the order is decided (under the writer lock;
    /// it never blocks on the disk), then `wait()` on the result after releasing that lock. Writes
    /// commit in enqueue order, and each `wait()` returns only once its events are durable, so
    /// N requests in flight cost one commit instead of N.
    ///
    /// ```swift
    /// let pending = writerLock.withLock { store.enqueue(events) }   // order fixed, no I/O
    /// try pending.wait()                                           // durable, shared commit
    /// ```
    public func enqueue(_ events: [StateEvent]) -> PendingWrite {
        PendingWrite(file: file, pending: file.enqueue(events.map(\.stored)))
    }

    /// Everything in the file now (after every write that returned before this call).
    public func loadSnapshot() throws(StateStoreError) -> StateSnapshot {
        let stored = try file.loadSnapshot()
        do {
            return try StateSnapshot.restoring(stored.projects, path: path)
        } catch {
            throw .readFailed(path: path, detail: error.description)
        }
    }

    /// The most writes one commit has carried so far.
    var largestBatch: Int { file.largestBatch }

    /// Makes every later write fail as on a read-only disk (tests only).
    func refuseWritesForTesting() {
        file.refuseWritesForTesting()
    }

    /// Closes the file once the running commit is done; closing folds the write-ahead log back into
    /// the file and removes it, so call it on a clean shutdown. Later writes throw `.closed`.
    public func close() {
        file.close()
    }
}
