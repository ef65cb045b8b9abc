import Dispatch
import HTTP
import Reactor
import Sockets
import Synchronization

/// The server's use of one ``Reactor``: the connections it accepted on one core.
///
/// The server runs about one loop per core. Each accepted socket becomes a ``Connection``
/// registered with the loop's reactor, which serves every ready connection in one batch on
/// its serial queue and sweeps their timeouts. The loop adds what only the server knows:
/// the shared context, the `Date` field, the open-connection count and graceful shutdown.
final class EventLoop: @unchecked Sendable {
    // Confined to `queue` after init: `shuttingDown`, and the reactor's table.
    let reactor: Reactor
    let context: ServerContext
    /// Called (on this queue) each time a connection ends; the server counts them.
    let connectionEnded: @Sendable () -> Void
    /// The `Date` of answers leaving this loop, formatted once a second.
    let date: DateField
    private(set) var shuttingDown = false
    /// True while a ``Responder/batchEnded()`` call is queued behind the work in hand.
    private var batchEndQueued = false
    /// True when a request answered during the reactor's current round waits for its end.
    private var endBatchAfterRound = false
    /// This loop's request log lines, handed to the server's sink once per wake-up; nil when quiet.
    let requestLog: RequestLogBatch?
    /// The last HTTP/1 head that parsed on any of this loop's connections: their parsers all
    /// run on its queue, so they share one instead of keeping one each.
    let headMemo = HTTPHeadMemo()

    var queue: DispatchQueue { reactor.queue }
    /// 64 KiB, reused by every read on this loop.
    var readBuffer: UnsafeMutableRawBufferPointer { reactor.readBuffer }
    /// 16 KiB (one TLS record), reused by every decryption on this loop.
    var plaintextBuffer: UnsafeMutableRawBufferPointer { reactor.plaintextBuffer }
    /// True when the caller runs on this loop's queue.
    var isCurrent: Bool { reactor.isCurrent }

    init(context: ServerContext, index: Int, connectionEnded: @escaping @Sendable () -> Void) throws {
        self.reactor = try Reactor(label: "lerix.http.loop.\(index)", sweepInterval: Self.sweepInterval(context))
        self.context = context
        self.connectionEnded = connectionEnded
        self.date = DateField(clock: context.configuration.clock)
        let queue = reactor.queue
        self.requestLog = context.log.map { RequestLogBatch(sink: $0, queue: queue) }
    }

    /// Called after each `respond` on this loop, for a responder that wants batch ends: during a
    /// reactor round, one ``Responder/batchEnded()`` follows the round (every ready socket it
    /// served), before the reactor polls again, so answers that wait for it (a group commit) go
    /// out and their connections' next requests can arrive in the same wake-up; outside a round
    /// (an answer that unblocked a pipelined request), one is queued behind the work in hand.
    /// On this loop's queue.
    func responded() {
        guard context.endsBatches else { return }
        if reactor.isServing {
            endBatchAfterRound = true
            return
        }
        guard !batchEndQueued else { return }
        batchEndQueued = true
        queue.async { [self] in
            batchEndQueued = false
            context.responder.batchEnded()
        }
    }

    /// Work handed to this loop from other threads (answers whose commit another loop ran),
    /// waiting for the one queue hop that runs all of it.
    private let inbox = Mutex<[@Sendable () -> Void]>([])

    /// Runs `work` on this loop's queue, from any thread. Work that arrives while a hop is on its
    /// way joins it: a commit that answers many of this loop's requests costs one hop (a block
    /// copy, a queue wake-up), not one per answer.
    func runOnLoop(_ work: @escaping @Sendable () -> Void) {
        let first = inbox.withLock { waiting in
            waiting.append(work)
            return waiting.count == 1
        }
        if first { queue.async { [self] in runInbox() } }
    }

    private func runInbox() {
        var taken: [@Sendable () -> Void] = []
        inbox.withLock { swap(&taken, &$0) }
        for work in taken { work() }
    }

    /// Starts the reactor. Call once, on any thread.
    func start() {
        if context.endsBatches {
            reactor.roundEnded = { [unowned self] in
                if endBatchAfterRound {
                    endBatchAfterRound = false
                    context.responder.batchEnded()
                }
                // Answers another loop's commit sent here go out now too, not after the wake-up.
                runInbox()
            }
        }
        reactor.start()
    }

    /// A quarter of the shortest timeout, between 10 ms and 1 s.
    static func sweepInterval(_ context: ServerContext) -> UInt64 {
        let shortest = min(context.headerReadTimeout, context.idleTimeout, context.requestReadTimeout)
        return min(max(shortest / 4, 10_000_000), 1_000_000_000)
    }

    /// Takes over an accepted (non-blocking) socket. On this loop's queue.
    func adopt(_ fd: Int32) {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
        guard !shuttingDown, fd >= 0 else {
            Posix.close(fd)
            connectionEnded()
            return
        }
        let connection = Connection(fd: fd, loop: self)
        if !connection.start() {
            Posix.close(fd)
            connectionEnded()
        }
    }

    /// Graceful: connections finish in-flight requests, idle ones close now.
    /// Otherwise every connection closes at once. On this loop's queue.
    func shutdown(graceful: Bool) {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
        shuttingDown = true
        reactor.forEachHandler { handler in
            guard let connection = handler as? Connection else { return }
            if graceful { connection.drain() } else { connection.close() }
        }
    }

    /// Stops the sources once every connection is gone. On this loop's queue.
    func stopSources() { reactor.stop() }
}
