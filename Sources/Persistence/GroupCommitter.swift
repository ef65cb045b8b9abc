import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one thread that touches the state file after start. Writers hand it events; it commits
/// everything that arrived while the previous commit was syncing in a single transaction, so N
/// concurrent writers cost one fsync instead of N, and acknowledges each writer only after that
/// transaction commits.
///
/// When a batch fails, each writer's events are retried in a transaction of their own, so one
/// writer's failure never fails another's write.
final class GroupCommitter: @unchecked Sendable {
    // `database` is used only on the writer thread once `start()` ran (which closes it when it
    // stops); `pending` is the only state shared with submitters and sits behind its mutex.
    private enum Job: Sendable {
        case write([StoredEvent], CommitTicket)
        case read(@Sendable (StateDatabase) -> Void)
        case stop
    }

    private var database: StateDatabase?
    private let path: String
    private let pending = Mutex<(jobs: [Job], accepting: Bool)>(([], true))
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// How many writes the largest batch so far carried (observability for tests and benches).
    let largestBatch = Atomic<Int>(0)

    init(database: StateDatabase) {
        self.database = database
        self.path = database.path
    }

    /// Starts the writer thread. The thread keeps `self` alive until `stop()`.
    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let committer = Unmanaged<GroupCommitter>.fromOpaque(context).takeRetainedValue()
            committer.run()
            return nil
        }, box)
        if rc == 0 {
            pthread_detach(thread)
        } else {
            // No thread: run nothing, fail every write clearly instead of hanging.
            Unmanaged<GroupCommitter>.fromOpaque(box).release()
            pending.withLock { $0.accepting = false }
            database = nil
            stopped.signal()
        }
    }

    /// Queues `events`; the ticket completes when they are committed.
    func submit(_ events: [StoredEvent], completion: (@Sendable (StateStoreError?) -> Void)?) -> CommitTicket {
        let ticket = CommitTicket(completion: completion)
        let accepted = pending.withLock { state in
            guard state.accepting else { return false }
            state.jobs.append(.write(events, ticket))
            return true
        }
        if accepted {
            wake.signal()
        } else {
            ticket.finish(.closed(path: path))
        }
        return ticket
    }

    /// Runs `body` on the writer thread, after every write submitted before it, and waits for it.
    func read<T: Sendable>(_ body: @escaping @Sendable (StateDatabase) -> T) -> T? {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let accepted = pending.withLock { state in
            guard state.accepting else { return false }
            state.jobs.append(.read({ database in
                let value = body(database)
                result.withLock { $0 = value }
                done.signal()
            }))
            return true
        }
        guard accepted else { return nil }
        wake.signal()
        done.wait()
        return result.withLock { $0.take() }
    }

    /// Commits what is queued, then ends the writer thread. Later writes fail with `.closed`.
    func stop() {
        let first = pending.withLock { state in
            guard state.accepting else { return false }
            state.accepting = false
            state.jobs.append(.stop)
            return true
        }
        if first { wake.signal() }
        stopped.wait()
        stopped.signal()
    }

    private func run() {
        var running = true
        while running {
            wake.wait()
            let jobs = pending.withLock { state in
                let taken = state.jobs
                state.jobs.removeAll(keepingCapacity: true)
                return taken
            }
            var batch: [([StoredEvent], CommitTicket)] = []
            for job in jobs {
                switch job {
                case .write(let events, let ticket):
                    batch.append((events, ticket))
                case .read(let body):
                    commit(batch)
                    batch.removeAll()
                    if let database { body(database) }
                case .stop:
                    running = false
                }
            }
            commit(batch)
        }
        database = nil  // closes the file (and releases its lock) before `stop()` returns
        stopped.signal()
    }

    private func commit(_ batch: [([StoredEvent], CommitTicket)]) {
        guard !batch.isEmpty else { return }
        guard let database else {
            for (_, ticket) in batch { ticket.finish(.closed(path: path)) }
            return
        }
        if batch.count > largestBatch.load(ordering: .relaxed) {
            largestBatch.store(batch.count, ordering: .relaxed)
        }
        let connection = database.connection
        do {
            try connection.transaction({ () throws(SQLiteError) in
                for (events, _) in batch {
                    for event in events { try database.apply(event) }
                }
            }, context: "saving \(batch.count) write\(batch.count == 1 ? "" : "s")")
            for (_, ticket) in batch { ticket.finish(nil) }
            return
        } catch {
            if batch.count == 1 {
                batch[0].1.finish(.writeRefused(path: path, detail: error.message))
                return
            }
        }
        for (events, ticket) in batch {
            do {
                try connection.transaction({ () throws(SQLiteError) in
                    for event in events { try database.apply(event) }
                }, context: "saving a write")
                ticket.finish(nil)
            } catch {
                ticket.finish(.writeRefused(path: path, detail: error.message))
            }
        }
    }
}
