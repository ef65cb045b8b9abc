import Synchronization

/// Group commit without a hand-off: whichever writer gets the file commits everything queued so
/// far (its own events and those of writers that arrived while the previous commit ran) in one
/// transaction, and each writer returns only once the transaction holding its events committed.
///
/// A lone writer commits on its own thread with no thread switch; N writers arriving together
/// cost one commit. When a batch fails, each writer's events are retried in a transaction of
/// their own, so one writer's refused write never fails another's.
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
        var done = false
        var outcome: StateStoreError?

        init(events: [StoredEvent]) { self.events = events }
    }

    /// The file, while open; whoever holds this lock is the only one touching it.
    private struct Access: ~Copyable {
        var database: StateDatabase?
    }

    private let path: String
    private let queue = Mutex<[Pending]>([])
    private let access: Mutex<Access>
    private let batchMaximum = Atomic<Int>(0)

    init(database: StateDatabase) {
        path = database.path
        access = Mutex(Access(database: database))
    }

    /// Commits `events` (with whatever else is queued) and returns once they are durable.
    func write(_ events: [StoredEvent]) throws(StateStoreError) {
        try wait(for: enqueue(events))
    }

    /// Puts `events` in line without waiting: writes commit in the order they were enqueued.
    func enqueue(_ events: [StoredEvent]) -> Pending {
        let pending = Pending(events: events)
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

    private func commit(_ batch: [Pending], in database: StateDatabase?) {
        defer { for pending in batch { pending.done = true } }
        guard let database else {
            for pending in batch { pending.outcome = .closed(path: path) }
            return
        }
        if batch.count > batchMaximum.load(ordering: .relaxed) {
            batchMaximum.store(batch.count, ordering: .relaxed)
        }
        let connection = database.connection
        do {
            try connection.transaction({ () throws(SQLiteError) in
                for pending in batch {
                    for event in pending.events { try database.apply(event) }
                }
            }, context: "saving \(batch.count) write\(batch.count == 1 ? "" : "s")")
            return
        } catch {
            if batch.count == 1 {
                batch[0].outcome = .writeRefused(path: path, detail: error.message)
                return
            }
        }
        for pending in batch {
            do {
                try connection.transaction({ () throws(SQLiteError) in
                    for event in pending.events { try database.apply(event) }
                }, context: "saving a write")
            } catch {
                pending.outcome = .writeRefused(path: path, detail: error.message)
            }
        }
    }
}
