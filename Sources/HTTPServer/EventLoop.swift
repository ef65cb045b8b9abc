import Dispatch
import Sockets
import Synchronization

/// One serial queue, one epoll instance, and the connections confined to them.
///
/// The server runs about one loop per core. Connections register their sockets with the
/// loop's level-triggered ``Epoll``; a single Dispatch read source watches the epoll
/// descriptor, and its handler (on the loop's queue) collects every ready socket without
/// blocking and serves them in one batch. So one Dispatch wake-up serves many requests,
/// nothing is re-armed per event, and connection state needs no locks. The loop's single
/// read buffer serves every connection: idle connections hold no buffer of their own.
/// A repeating timer sweeps the connections for expired timeouts.
final class EventLoop: @unchecked Sendable {
    // Confined to `queue` after init: `table`, `count`, `readBuffer` contents, sources, `shuttingDown`.
    let id: Int
    let queue: DispatchQueue
    let context: ServerContext
    let epoll: Epoll
    /// 64 KiB, reused by every read on this loop.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// 16 KiB (one TLS record), reused by every decryption on this loop.
    let plaintextBuffer: UnsafeMutableRawBufferPointer
    /// Connections by descriptor number (descriptors are small and unique while open).
    private var table: [Connection?] = []
    private(set) var count = 0
    private var readySource: DispatchSourceRead?
    private var timer: DispatchSourceTimer?
    private(set) var shuttingDown = false
    /// Called (on this queue) each time a connection ends; the server counts them.
    let connectionEnded: @Sendable () -> Void
    /// The `Date` of answers leaving this loop, formatted once a second.
    let date: DateField

    private static let key = DispatchSpecificKey<Int>()
    private static let nextID = Atomic<Int>(1)

    init(context: ServerContext, index: Int, connectionEnded: @escaping @Sendable () -> Void) throws {
        self.id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.queue = DispatchQueue(label: "lerix.http.loop.\(index)")
        self.context = context
        self.connectionEnded = connectionEnded
        self.date = DateField(clock: context.configuration.clock)
        self.epoll = try Epoll()
        self.readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        self.plaintextBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
        queue.setSpecific(key: Self.key, value: id)
    }

    deinit {
        readBuffer.deallocate()
        plaintextBuffer.deallocate()
    }

    /// True when the caller runs on this loop's queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == id }

    /// Starts watching the epoll descriptor and the timeout sweep. Call once, on any thread.
    func start() {
        queue.async { [self] in
            let source = DispatchSource.makeReadSource(fileDescriptor: epoll.fd, queue: queue)
            source.setEventHandler { [weak self] in self?.serveReady() }
            readySource = source
            source.resume()

            let interval = Self.sweepInterval(context)
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .nanoseconds(Int(interval)), repeating: .nanoseconds(Int(interval)),
                           leeway: .nanoseconds(Int(interval / 4)))
            timer.setEventHandler { [weak self] in self?.sweep() }
            self.timer = timer
            timer.resume()
        }
    }

    /// A quarter of the shortest timeout, between 10 ms and 1 s.
    static func sweepInterval(_ context: ServerContext) -> UInt64 {
        let shortest = min(context.headerReadTimeout, context.idleTimeout, context.requestReadTimeout)
        return min(max(shortest / 4, 10_000_000), 1_000_000_000)
    }

    /// Serves every socket that is ready now.
    ///
    /// Polls again after a batch: requests that arrived while it was served are taken
    /// now instead of after another Dispatch wake-up (a few rounds at most, for fairness).
    /// A batch that took long ends the wake-up at once, so work queued behind it (new
    /// connections, late answers) is not held up by further rounds; epoll still reports
    /// what is left.
    private func serveReady() {
        let started = ServerContext.now()
        for _ in 0 ..< 4 {
            let ready = epoll.poll { fd, events in
                let index = Int(fd)
                guard index >= 0, index < table.count, let connection = table[index] else { return }
                connection.handle(events)
            }
            if ready == 0 || ServerContext.now() &- started > Self.longBatch { return }
        }
    }

    /// Past this (2 ms), a wake-up serves no further batch.
    private static let longBatch: UInt64 = 2_000_000

    /// Takes over an accepted (non-blocking) socket. On this loop's queue.
    func adopt(_ fd: Int32) {
        let index = Int(fd)
        guard !shuttingDown, index >= 0 else {
            Posix.close(fd)
            connectionEnded()
            return
        }
        let connection = Connection(fd: fd, loop: self)
        if index >= table.count {
            table.append(contentsOf: repeatElement(nil, count: max(index + 1 - table.count, table.count)))
        }
        table[index] = connection
        count += 1
        if !connection.start() {
            remove(connection)
            Posix.close(fd)
        }
    }

    /// Forgets a closed connection. On this loop's queue.
    func remove(_ connection: Connection) {
        let index = Int(connection.fd)
        guard index >= 0, index < table.count, table[index] === connection else { return }
        table[index] = nil
        count -= 1
        connectionEnded()
    }

    /// Closes connections whose deadline passed.
    private func sweep() {
        let now = ServerContext.now()
        for case let connection? in table where connection.deadline != 0 && now >= connection.deadline {
            connection.timedOut()
        }
    }

    /// Graceful: connections finish in-flight requests, idle ones close now.
    /// Otherwise every connection closes at once. On this loop's queue.
    func shutdown(graceful: Bool) {
        shuttingDown = true
        for case let connection? in table {
            if graceful { connection.drain() } else { connection.close() }
        }
    }

    /// Stops the sources once every connection is gone. On this loop's queue.
    func stopSources() {
        timer?.cancel()
        timer = nil
        readySource?.cancel()
        readySource = nil
    }
}
