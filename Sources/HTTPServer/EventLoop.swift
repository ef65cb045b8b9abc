import Dispatch
import Sockets
import Synchronization

/// One serial queue and the connections confined to it.
///
/// The server runs about one loop per core. Everything a connection does happens on its
/// loop's queue, so connection state needs no locks, and the loop's single read buffer
/// serves every connection (idle connections hold no buffer of their own). A repeating
/// timer sweeps the connections for expired timeouts.
final class EventLoop: @unchecked Sendable {
    // Confined to `queue` (after init): `connections`, `readBuffer` contents, `timer`, `shuttingDown`.
    let id: Int
    let queue: DispatchQueue
    let context: ServerContext
    /// 64 KiB, reused by every read on this loop.
    let readBuffer: UnsafeMutableRawBufferPointer
    private(set) var connections: [Connection] = []
    private var timer: DispatchSourceTimer?
    private(set) var shuttingDown = false
    /// Called (on this queue) each time a connection ends; the server counts them.
    let connectionEnded: @Sendable () -> Void

    private static let key = DispatchSpecificKey<Int>()
    private static let nextID = Atomic<Int>(1)

    init(context: ServerContext, index: Int, connectionEnded: @escaping @Sendable () -> Void) {
        self.id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.queue = DispatchQueue(label: "lerix.http.loop.\(index)")
        self.context = context
        self.connectionEnded = connectionEnded
        self.readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        queue.setSpecific(key: Self.key, value: id)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// True when the caller runs on this loop's queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == id }

    /// Starts the timeout sweep. Call once, on any thread.
    func start() {
        queue.async {
            let interval = Self.sweepInterval(self.context)
            let timer = DispatchSource.makeTimerSource(queue: self.queue)
            timer.schedule(deadline: .now() + .nanoseconds(Int(interval)), repeating: .nanoseconds(Int(interval)),
                           leeway: .nanoseconds(Int(interval / 4)))
            timer.setEventHandler { [unowned self] in self.sweep() }
            self.timer = timer
            timer.resume()
        }
    }

    /// A quarter of the shortest timeout, between 10 ms and 1 s.
    static func sweepInterval(_ context: ServerContext) -> UInt64 {
        let shortest = min(context.headerReadTimeout, context.idleTimeout)
        return min(max(shortest / 4, 10_000_000), 1_000_000_000)
    }

    /// Takes over an accepted socket. On this loop's queue.
    func adopt(_ fd: Int32) {
        if shuttingDown {
            Posix.close(fd)
            connectionEnded()
            return
        }
        let connection = Connection(fd: fd, loop: self)
        connection.slot = connections.count
        connections.append(connection)
        connection.start()
    }

    /// Forgets a closed connection. On this loop's queue.
    func remove(_ connection: Connection) {
        let slot = connection.slot
        guard slot >= 0, slot < connections.count, connections[slot] === connection else { return }
        let last = connections.removeLast()
        if slot < connections.count {
            connections[slot] = last
            last.slot = slot
        }
        connection.slot = -1
        connectionEnded()
    }

    /// Closes connections whose deadline passed.
    private func sweep() {
        let now = ServerContext.now()
        var i = 0
        while i < connections.count {
            let connection = connections[i]
            if connection.deadline != 0 && now >= connection.deadline {
                connection.timedOut()   // removes it: the same index now holds another
                if i < connections.count && connections[i] === connection { i += 1 }
            } else {
                i += 1
            }
        }
    }

    /// Graceful: connections finish in-flight requests, idle ones close now.
    /// Otherwise every connection closes at once. On this loop's queue.
    func shutdown(graceful: Bool) {
        shuttingDown = true
        for connection in connections {
            if graceful { connection.drain() } else { connection.close() }
        }
    }

    /// Stops the sweep timer. On this loop's queue.
    func stopTimer() {
        timer?.cancel()
        timer = nil
    }
}
