import Dispatch
import JSON
import MockServer
import Synchronization

/// MockServer's ``StateStore`` on an SQLite file: what `serve --state FILE` runs on.
///
/// Every acknowledged write is committed before its 2xx (WAL; see ``StateDurability`` for the
/// synchronous level). MockServer pipelines its writes through ``enqueue(_:whenDurable:)``:
/// whatever is waiting commits in one transaction (group commit), at the end of a server loop's
/// batch on that loop (``commitEnqueuedInPlace()``) when commits need no sync, else on a commit
/// queue of its own, so the server's threads never wait for the disk and N writes in flight cost
/// one commit. Checks
/// never come here: MockServer
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
    /// False when a commit syncs (``StateDurability/powerLoss``): then every commit runs in the
    /// file's background queue, never on a server loop.
    private let commitsInPlace: Bool
    /// The chain pipelined writes are planned in now; it moves on once a refusal is recovered from.
    private let chain = Atomic<UInt64>(1)
    /// Set by an enqueue that found no drain on its way; ``commitEnqueued()`` starts it.
    private let drainWanted = Atomic<Bool>(false)

    /// The state file's path, as given.
    public var path: String { file.path }
    /// True when `open` created the file (from `seed`); false when it loaded an existing one.
    public var created: Bool { file.created }
    /// The seed `POST /admin/reset` returns to: the one the file was created with.
    public let seed: StateSnapshot

    private init(file: StateFile, snapshot: StateSnapshot, seed: StateSnapshot, durability: StateDurability) {
        self.file = file
        self.snapshot = snapshot
        self.seed = seed
        commitsInPlace = !durability.syncsEachCommit
    }

    /// Opens `path`, or creates it holding `seed` when it does not exist or is empty.
    ///
    /// Refuses with a message that names the file, leaving it as it was: bytes that are not
    /// SQLite, another program's SQLite file, a damaged file, a file from a newer lerix-mock, a
    /// file another process has open, contents that no longer read back as a valid state.
    public static func open(
        path: String,
        seed: StateSnapshot,
        durability: StateDurability = .default
    ) throws(StateFileError) -> SQLiteStateStore {
        // Rows that do not read back as a state are refused before the file is opened for
        // writing (which would change its header): a refused file keeps every byte.
        let readsBack = { (stored: StoredState) throws(StateFileError) -> Void in
            _ = try StateSnapshot.restoring(stored.projects, path: path)
            if let json = stored.seed { _ = try StateSnapshot.restoring(json, what: "the stored seed", path: path) }
        }
        let file = try StateFile.open(
            path: path,
            seed: StoredState(seed: seed.json, projects: seed.storedProjects),
            durability: durability,
            validate: readsBack
        )
        do {
            let stored = file.initialState
            let snapshot = try StateSnapshot.restoring(stored.projects, path: path)
            let storedSeed =
                try stored.seed.map { json throws(StateFileError) in
                    try StateSnapshot.restoring(json, what: "the stored seed", path: path)
                } ?? seed
            return SQLiteStateStore(file: file, snapshot: snapshot, seed: storedSeed, durability: durability)
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

    /// Queues `events` behind every earlier write; the next drain (``commitEnqueued()`` or
    /// ``commitEnqueuedInPlace()``) commits them with whatever else is waiting by then, in one
    /// transaction, and `whenDurable` runs on the draining thread once they are committed or refused. Writes commit in enqueue order. After a refusal, every write enqueued
    /// before ``recoverAfterRefusal()`` is refused too (``StateStoreError/refusedEarlier(path:)``):
    /// it was planned on top of the refused one.
    ///
    /// ```swift
    /// try writerLock.withLock { try store.enqueue(events) { error in reply(error == nil ? ok : unavailable) } }
    /// store.commitEnqueued()   // outside the lock: starts the commit
    /// ```
    public func enqueue(_ events: [StateEvent], whenDurable: @escaping @Sendable ((any Error)?) -> Void) {
        let mustDrain = file.enqueue(events.map(\.stored), chain: chain.load(ordering: .relaxed), whenDone: whenDurable)
        if mustDrain { drainWanted.store(true, ordering: .releasing) }
    }

    /// Starts the drain an ``enqueue(_:whenDurable:)`` asked for (the wake-up is a system call,
    /// so MockServer makes it outside its writer lock). Writes wait in the queue until then.
    public func commitEnqueued() {
        if drainWanted.exchange(false, ordering: .acquiringAndReleasing) {
            file.drainInBackground()
        }
    }

    /// On a server loop at the end of its batch: commits what is queued (this loop's writes and
    /// any other's) right here, unless commits sync or a checkpoint or read holds the file; then
    /// the commit moves to the background, as with ``commitEnqueued()``. Another loop's answers
    /// go back to it through its queue.
    public func commitEnqueuedInPlace() {
        guard drainWanted.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if commitsInPlace {
            file.drainWithoutWaiting()
        } else {
            file.drainInBackground()
        }
    }

    /// The file's state, once a pipelined write was refused (nil otherwise); writes enqueued from
    /// here on are tried again. Call it under the lock that orders ``enqueue(_:whenDurable:)``.
    public func recoverAfterRefusal() throws(StateStoreError) -> StateSnapshot? {
        let broken = file.brokenChain
        guard broken >= chain.load(ordering: .relaxed) else { return nil }
        let stored = try loadSnapshot()
        chain.store(broken + 1, ordering: .relaxed)
        return stored
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

    /// Lets the file grow no further, as on a full disk (tests only).
    func limitGrowthForTesting() {
        file.limitGrowthForTesting()
    }

    /// Keeps the file busy until `release` is signalled, so writes queue up (tests only).
    func holdWriterForTesting(until release: DispatchSemaphore) {
        file.holdWriterForTesting(until: release)
    }

    /// Writes waiting for the file right now (tests only).
    var queuedForTesting: Int { file.queuedForTesting }

    /// Closes the file once the running commit is done; closing folds the write-ahead log back into
    /// the file and removes it, so call it on a clean shutdown. Later writes throw `.closed`.
    public func close() {
        file.close()
    }
}
