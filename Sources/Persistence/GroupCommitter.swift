import Synchronization

/// Group commit without a hand-off: whichever writer gets the file commits everything queued so
/// far (its own events and those of writers that arrived while the previous commit ran) in one
/// transaction, and each writer returns only once the transaction holding its events committed.
///
/// A lone writer commits on its own thread with no thread switch; N writers arriving together
/// cost one commit. When a batch fails, each writer's events are retried in a transaction of
/// their own, so one writer's refused write never fails another's.
///
/// Pipelined writes (``enqueue(_:chain:)`` with a chain number) were planned on top of every
/// earlier one, so they are different: once one is refused, every later write of the same (or an
/// older) chain is refused too, without trying, until the caller starts a new chain
/// (``brokenChain`` says which chain broke).
///
/// ```swift
/// let committer = GroupCommitter(database: database)
/// try committer.write([.tokenDeleted(project: "demo", token: "abc")])   // durable when it returns
/// ```
final class GroupCommitter: Sendable {
    /// One writer's events and, once its batch ran, the outcome. `done` and `outcome` are read
    /// and written only with `access` held, which is what makes the unchecked Sendable sound.
    final class Pending: @unchecked Sendable {
        let events: [StoredEvent]
        /// The chain a pipelined write was planned in; nil for a write that stands alone.
        let chain: UInt64?
        var done = false
        var outcome: StateStoreError?

        init(events: [StoredEvent], chain: UInt64?) {
            self.events = events
            self.chain = chain
        }
    }

    /// The file, while open; whoever holds this lock is the only one touching it.
    private struct Access: ~Copyable {
        var database: StateDatabase?
    }

    private let path: String
    private let queue = Mutex<[Pending]>([])
    private let access: Mutex<Access>
    private let batchMaximum = Atomic<Int>(0)
    /// The newest chain in which a pipelined write was refused; 0 while none was. Written with
    /// `access` held.
    private let broken = Atomic<UInt64>(0)

    init(database: StateDatabase) {
        path = database.path
        access = Mutex(Access(database: database))
    }

    /// Commits `events` (with whatever else is queued) and returns once they are durable.
    func write(_ events: [StoredEvent]) throws(StateStoreError) {
        try wait(for: enqueue(events))
    }

    /// Puts `events` in line without waiting: writes commit in the order they were enqueued.
    /// `chain` marks a pipelined write (see the type's summary); chains count from 1.
    func enqueue(_ events: [StoredEvent], chain: UInt64? = nil) -> Pending {
        let pending = Pending(events: events, chain: chain)
        queue.withLock { $0.append(pending) }
        return pending
    }

    /// Returns once `mine` is durable, committing it (and everything queued) if nobody has yet.
    func wait(for mine: Pending) throws(StateStoreError) {
        try access.withLock { access throws(StateStoreError) in
            if !mine.done {
                let batch = queue.withLock { queued in
                    let taken = queued
                    queued.removeAll(keepingCapacity: true)
                    return taken
                }
                commit(batch, in: access.database)
            }
            if let outcome = mine.outcome { throw outcome }
        }
    }

    /// Runs `body` with the file to itself, between batches; nil once closed.
    func read<T: Sendable>(_ body: (StateDatabase) -> T) -> T? {
        access.withLock { access in access.database.map(body) }
    }

    /// Closes the file (releasing its lock) once the running batch is done. Later writes fail
    /// with `.closed`.
    func close() {
        access.withLock { $0.database = nil }
    }

    /// Writes waiting for the file right now.
    var queued: Int { queue.withLock { $0.count } }

    /// The most writes one commit has carried so far.
    var largestBatch: Int { batchMaximum.load(ordering: .relaxed) }

    /// The newest chain in which a pipelined write was refused (0: none).
    var brokenChain: UInt64 { broken.load(ordering: .acquiring) }

    /// A pipelined write planned in a chain that already broke: it builds on a refused write.
    private func doomed(_ pending: Pending) -> Bool {
        guard let chain = pending.chain else { return false }
        return chain <= broken.load(ordering: .relaxed)
    }

    private func refuse(_ pending: Pending, _ error: StateStoreError) {
        pending.outcome = error
        if let chain = pending.chain, chain > broken.load(ordering: .relaxed) {
            broken.store(chain, ordering: .releasing)
        }
    }

    private func commit(_ batch: [Pending], in database: StateDatabase?) {
        defer { for pending in batch { pending.done = true } }
        guard let database else {
            for pending in batch { refuse(pending, .closed(path: path)) }
            return
        }
        if batch.count > batchMaximum.load(ordering: .relaxed) {
            batchMaximum.store(batch.count, ordering: .relaxed)
        }
        let connection = database.connection
        if !batch.contains(where: doomed) {
            do {
                try connection.transaction({ () throws(SQLiteError) in
                    for pending in batch {
                        for event in pending.events { try database.apply(event) }
                    }
                }, context: "saving \(batch.count) write\(batch.count == 1 ? "" : "s")")
                return
            } catch {
                if batch.count == 1 {
                    refuse(batch[0], .writeRefused(path: path, detail: error.message))
                    return
                }
            }
        }
        // One by one, in order, so a refusal costs only the writes that build on it.
        for pending in batch {
            if doomed(pending) {
                pending.outcome = .refusedEarlier(path: path)
                continue
            }
            do {
                try connection.transaction({ () throws(SQLiteError) in
                    for event in pending.events { try database.apply(event) }
                }, context: "saving a write")
            } catch {
                refuse(pending, .writeRefused(path: path, detail: error.message))
            }
        }
    }
}
