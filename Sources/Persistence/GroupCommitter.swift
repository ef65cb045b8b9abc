import Dispatch
import POSIX
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
/// (``brokenChain`` says which chain broke). One drain at a time commits them (`draining`): on
/// the caller's thread while the file is free (``drainWithoutWaiting()``, a server loop, for
/// commits that do not sync) or on the background queue (``drainInBackground()``); writes
/// queued while a drain runs join it, on whichever thread it runs.
///
/// ```swift
/// let committer = GroupCommitter(database: database)
/// try committer.write([.tokenDeleted(project: "demo", token: "abc")])   // durable when it returns
/// ```
final class GroupCommitter: Sendable {
    /// A writer waiting for its batch (``write(_:)``, ``wait(for:)``): the outcome, once the
    /// batch ran.
    final class Pending: Sendable {
        /// Set by the batch that carries the events.
        private let result = Mutex<(done: Bool, outcome: StateStoreError?)>((false, nil))

        var done: Bool { result.withLock { $0.done } }
        var outcome: StateStoreError? { result.withLock { $0.outcome } }

        func finish(_ outcome: StateStoreError?) {
            result.withLock { $0 = (true, outcome) }
        }
    }

    /// One write in line: a value in the queue's array, so a pipelined write (the busy path)
    /// costs no object of its own.
    private struct Write: Sendable {
        let events: [StoredEvent]
        /// The chain a pipelined write was planned in; nil for a write that stands alone.
        let chain: UInt64?
        /// A pipelined write's report, run once its batch ran (outside the file's lock), with nil
        /// or the ``StateStoreError``. Typed as the store's own report, so the store hands it
        /// over as it is, without a wrapping closure per write.
        let whenDone: (@Sendable ((any Error)?) -> Void)?
        /// The writer that waits for it (``enqueue(_:chain:)``); nil for a pipelined write.
        let waiter: Pending?
    }

    /// A batch that ran: its writes and, when any was refused, each one's outcome (nil: all
    /// committed, the usual case, with no array made for it).
    private struct Ran {
        let writes: [Write]
        let refusals: [StateStoreError?]?

        func outcome(_ index: Int) -> StateStoreError? { refusals?[index] ?? nil }
    }

    /// Writes waiting for the file, and whether a drain (``drain()``) is on its way for them.
    private struct Queue {
        var items: [Write] = []
        var draining = false
    }

    /// The file, while open; whoever holds this lock is the only one touching it.
    private struct Access: ~Copyable {
        var database: StateDatabase?
    }

    private let path: String
    private let queue = Mutex(Queue())
    private let access: Mutex<Access>
    private let batchMaximum = Atomic<Int>(0)
    /// The newest chain in which a pipelined write was refused; 0 while none was. Written with
    /// `access` held.
    private let broken = Atomic<UInt64>(0)
    /// Runs what may wait for the disk or for the file's lock: drains handed over by callers
    /// that may not wait (``drainInBackground()``), and checkpoints.
    private let background = DispatchQueue(label: "lerix.state.commit")
    /// Log frames after which a commit queues a checkpoint on `background`; nil when SQLite
    /// checkpoints inside commits on its own (``init(database:checkpointAfter:)``).
    private let checkpointAfter: Int?
    /// True from queueing a checkpoint until it ran.
    private let checkpointQueued = Atomic<Bool>(false)

    /// `checkpointAfter`: when given, the database's connection has taken over checkpoints
    /// (``SQLiteConnection/takeOverCheckpoints()``) and a commit that leaves that many frames in
    /// the log queues one in the background, so commits never copy the log or sync.
    init(database: StateDatabase, checkpointAfter: Int? = nil) {
        path = database.path
        access = Mutex(Access(database: database))
        self.checkpointAfter = checkpointAfter
    }

    /// Commits `events` (with whatever else is queued) and returns once they are durable.
    func write(_ events: [StoredEvent]) throws(StateStoreError) {
        try wait(for: enqueue(events))
    }

    /// Puts `events` in line without waiting: writes commit in the order they were enqueued.
    /// `chain` marks a pipelined write (see the type's summary); chains count from 1.
    func enqueue(_ events: [StoredEvent], chain: UInt64? = nil) -> Pending {
        let pending = Pending()
        queue.withLock { $0.items.append(Write(events: events, chain: chain, whenDone: nil, waiter: pending)) }
        return pending
    }

    /// A pipelined write: puts `events` in line, and `whenDone` reports the outcome once a batch
    /// carried them. Returns true when the caller must run ``drain()`` (on a queue of its own):
    /// none is on its way, so one drain serves every write that arrives while it runs.
    func enqueue(_ events: [StoredEvent], chain: UInt64, whenDone: @escaping @Sendable ((any Error)?) -> Void) -> Bool {
        let write = Write(events: events, chain: chain, whenDone: whenDone, waiter: nil)
        return queue.withLock { q in
            q.items.append(write)
            if q.draining { return false }
            q.draining = true
            return true
        }
    }

    /// Commits batch after batch, everything queued at each turn, running the pipelined writes'
    /// reports in order, until nothing is left. Waits for the file when another holder has it.
    func drain() {
        while true {
            let batch = access.withLock { access in commitQueued(in: access.database) }
            guard let batch else { return }
            report(batch)
        }
    }

    /// ``drain()`` on the caller's thread for as long as the file is free; when another holder
    /// has it (a checkpoint, a read), the rest of the drain moves to the background instead of
    /// waiting. For callers that must not wait: a server loop. Returns false when it moved.
    @discardableResult
    func drainWithoutWaiting() -> Bool {
        while true {
            let turn: Ran?? = access.withLockIfAvailable { access in commitQueued(in: access.database) }
            guard let turn else {
                // The duty to drain (`draining`) goes along: writes queued meanwhile are not lost.
                drainInBackground()
                return false
            }
            guard let batch = turn else { return true }
            report(batch)
        }
    }

    /// Runs ``drain()`` on the background queue.
    func drainInBackground() {
        background.async { [self] in drain() }
    }

    /// One turn of a drain, with the file held: commits everything queued and returns it, or
    /// ends the drain (nil) when nothing is.
    private func commitQueued(in database: StateDatabase?) -> Ran? {
        let taken: [Write]? = queue.withLock { q in
            if q.items.isEmpty {
                q.draining = false
                return nil
            }
            defer { q.items.removeAll(keepingCapacity: true) }
            return q.items
        }
        guard let taken else { return nil }
        return commit(taken, in: database)
    }

    /// Returns once `mine` is durable, committing it (and everything queued) if nobody has yet.
    func wait(for mine: Pending) throws(StateStoreError) {
        let committed: Ran? = access.withLock { access in
            guard !mine.done else { return nil }
            let batch = queue.withLock { q in
                let taken = q.items
                q.items.removeAll(keepingCapacity: true)
                return taken
            }
            return commit(batch, in: access.database)
        }
        if let committed { report(committed) }
        if let outcome = mine.outcome { throw outcome }
    }

    /// Runs the pipelined writes' reports, outside the file's lock (waiting writers already
    /// heard under it).
    private func report(_ batch: Ran) {
        for (index, write) in batch.writes.enumerated() {
            write.whenDone?(batch.outcome(index))
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
    var queued: Int { queue.withLock { $0.items.count } }

    /// The most writes one commit has carried so far.
    var largestBatch: Int { batchMaximum.load(ordering: .relaxed) }

    /// The newest chain in which a pipelined write was refused (0: none).
    var brokenChain: UInt64 { broken.load(ordering: .acquiring) }

    /// Queues the file's upkeep in the background once it is due: a checkpoint once the log
    /// holds ``checkpointAfter`` frames (``StateDatabase/checkpointAndRestartLog()``), folding a
    /// token log grown with dead weight (``StateDatabase/foldTokenLogStep()``).
    private func checkpointIfDue(_ database: StateDatabase) {
        guard database.needsMaintenance(checkpointAfter: checkpointAfter),
            !checkpointQueued.exchange(true, ordering: .acquiringAndReleasing)
        else { return }
        background.async { [self] in maintainStep() }
    }

    /// One step of upkeep: a step of a due fold with the file held, the next step queued behind
    /// whatever was queued meanwhile (drains moved off a server loop), so a long fold holds
    /// writers up one step at a time; then, with checkpoints taken over, a checkpoint. A failed
    /// step leaves the file as it was (still valid) and is tried again after a later commit.
    private func maintainStep() {
        // True while the fold goes on, nil when its step failed (no checkpoint then either).
        let folding: Bool? = access.withLock { access in
            guard let database = access.database, database.foldIsDue else { return false }
            return try? !database.foldTokenLogStep()
        }
        if folding == true {
            background.async { [self] in maintainStep() }
            return
        }
        if folding == false, checkpointAfter != nil {
            // The log goes to disk first, without the file's lock, while writers go on: the
            // checkpoint's own sync of it then finds little left to write, and writers wait
            // about 10 ms for a checkpoint of 4,000 frames instead of 17.
            Posix.syncData(path + "-wal")
            access.withLock { access in _ = try? access.database?.checkpointAndRestartLog() }
        }
        checkpointQueued.store(false, ordering: .releasing)
    }

    /// A pipelined write planned in a chain that already broke: it builds on a refused write.
    private func doomed(_ write: Write) -> Bool {
        guard let chain = write.chain else { return false }
        return chain <= broken.load(ordering: .relaxed)
    }

    /// Marks a refused write's chain broken and returns the refusal.
    private func refuse(_ write: Write, _ error: StateStoreError) -> StateStoreError {
        if let chain = write.chain, chain > broken.load(ordering: .relaxed) {
            broken.store(chain, ordering: .releasing)
        }
        return error
    }

    /// Commits `batch` and tells its waiting writers; the pipelined ones hear from ``report(_:)``.
    private func commit(_ batch: [Write], in database: StateDatabase?) -> Ran {
        let ran = Ran(writes: batch, refusals: commitOnly(batch, in: database))
        for (index, write) in batch.enumerated() { write.waiter?.finish(ran.outcome(index)) }
        if let database { checkpointIfDue(database) }
        return ran
    }

    /// Nil when every write committed, else each one's outcome.
    private func commitOnly(_ batch: [Write], in database: StateDatabase?) -> [StateStoreError?]? {
        guard let database else {
            return batch.map { refuse($0, .closed(path: path)) }
        }
        if batch.count > batchMaximum.load(ordering: .relaxed) {
            batchMaximum.store(batch.count, ordering: .relaxed)
        }
        if !batch.contains(where: doomed) {
            do {
                try database.transaction(
                    { () throws(SQLiteError) in
                        for write in batch {
                            for event in write.events { try database.apply(event) }
                        }
                    },
                    context: "saving \(batch.count) write\(batch.count == 1 ? "" : "s")"
                )
                return nil
            } catch {
                if batch.count == 1 {
                    return [refuse(batch[0], .writeRefused(path: path, detail: error.message))]
                }
            }
        }
        // One by one, in order, so a refusal costs only the writes that build on it.
        return batch.map { write -> StateStoreError? in
            if doomed(write) { return .refusedEarlier(path: path) }
            do throws(SQLiteError) {
                try database.transaction(
                    { () throws(SQLiteError) in
                        for event in write.events { try database.apply(event) }
                    },
                    context: "saving a write"
                )
                return nil
            } catch {
                return refuse(write, .writeRefused(path: path, detail: error.message))
            }
        }
    }
}
