import Dispatch
import Sockets
import Synchronization

/// One serial queue, one level-triggered ``Epoll`` and the descriptors confined to them: the
/// event loop under both the server's connections and the client's.
///
/// A single Dispatch read source watches the epoll descriptor; its handler (on ``queue``)
/// collects every ready descriptor without blocking and calls its ``ReactorHandler`` in one
/// batch. So one Dispatch wake-up serves many sockets, nothing is re-armed per event, and
/// handler state needs no locks. The reactor's read buffers serve every handler: idle
/// sockets hold no buffer of their own. A repeating timer sweeps the handlers' deadlines.
///
/// ```swift
/// let reactor = try Reactor(label: "lerix.client", sweepInterval: 10_000_000)
/// reactor.start()
/// reactor.queue.async {
///     try reactor.register(socket, fd: fd, interest: [.writable])   // socket: a ReactorHandler
/// }
/// // later, on reactor.queue, when the socket closes:
/// reactor.deregister(socket, fd: fd); Posix.close(fd)
/// ```
///
/// (`@unchecked Sendable`: the table, sources and buffer contents are touched only on
/// ``queue``; debug builds check it.)
public final class Reactor: @unchecked Sendable {
    public let queue: DispatchQueue
    public let epoll: Epoll
    /// 64 KiB, reused by every read on this reactor (contents valid only during one call).
    public let readBuffer: UnsafeMutableRawBufferPointer
    /// 16 KiB (one TLS record), reused by every decryption on this reactor.
    public let plaintextBuffer: UnsafeMutableRawBufferPointer
    /// How often deadlines are checked (monotonic nanoseconds).
    public let sweepInterval: UInt64
    private let id: Int
    /// Handlers by descriptor number (descriptors are small and unique while open).
    private var table: [(any ReactorHandler)?] = []
    private var readySource: DispatchSourceRead?
    private var timer: DispatchSourceTimer?
    /// True while ``serveReady()`` calls handlers: work they start can wait for ``roundEnded``.
    public private(set) var isServing = false
    /// Called on the queue after each round of ready descriptors (see ``serveReady()``), before
    /// the next poll: what the round's handlers left to finish together (a commit their answers
    /// wait for) goes out now, so the answers' next requests can arrive in the same wake-up.
    public var roundEnded: (() -> Void)?

    private static let key = DispatchSpecificKey<Int>()
    private static let nextID = Atomic<Int>(1)

    /// - Parameters:
    ///   - sweepInterval: nanoseconds between deadline sweeps (at least 1 ms).
    ///   - qos: the queue's quality of service; on Linux, Dispatch runs a lower one on threads
    ///     with a higher nice value, so bulk I/O (a push fan-out) yields the CPU to the server's loops.
    public init(label: String, sweepInterval: UInt64, qos: DispatchQoS = .unspecified) throws {
        self.id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.queue = DispatchQueue(label: label, qos: qos)
        self.sweepInterval = max(sweepInterval, 1_000_000)
        self.epoll = try Epoll()
        self.readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        self.plaintextBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
        queue.setSpecific(key: Self.key, value: id)
    }

    deinit {
        readBuffer.deallocate()
        plaintextBuffer.deallocate()
    }

    /// Monotonic nanoseconds: the clock of every deadline on a reactor (real time, whatever
    /// clock the application runs on: sockets time out in real time).
    @inline(__always)
    public static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// True when the caller runs on this reactor's queue.
    public var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == id }

    /// Starts watching the epoll descriptor and the deadline sweep. Call once, on any thread.
    public func start() {
        queue.async { [self] in
            let source = DispatchSource.makeReadSource(fileDescriptor: epoll.fd, queue: queue)
            source.setEventHandler { [weak self] in self?.serveReady() }
            readySource = source
            source.resume()

            let interval = Int(min(sweepInterval, UInt64(Int.max)))
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(
                deadline: .now() + .nanoseconds(interval),
                repeating: .nanoseconds(interval),
                leeway: .nanoseconds(interval / 4)
            )
            timer.setEventHandler { [weak self] in self?.sweep() }
            self.timer = timer
            timer.resume()
        }
    }

    /// Stops the sources (once every handler is gone). On the queue.
    public func stop() {
        assertOnQueue()
        timer?.cancel()
        timer = nil
        readySource?.cancel()
        readySource = nil
    }

    /// Watches `fd` for `interest` and routes its events to `handler`. On the queue. Throws
    /// when the kernel refuses (the caller still owns and closes `fd`).
    public func register(_ handler: any ReactorHandler, fd: Int32, interest: Epoll.Events) throws {
        assertOnQueue()
        let index = Int(fd)
        guard index >= 0 else { throw SocketError(call: "epoll_ctl(ADD)", errno: 9) }  // EBADF
        try epoll.add(fd, interest: interest)
        if index >= table.count {
            table.append(contentsOf: repeatElement(nil, count: max(index + 1 - table.count, table.count)))
        }
        table[index] = handler
    }

    /// Changes what `fd` is watched for. On the queue.
    public func modify(fd: Int32, interest: Epoll.Events) throws {
        assertOnQueue()
        try epoll.modify(fd, interest: interest)
    }

    /// Stops watching `fd` and forgets `handler` (call before closing `fd`). On the queue.
    /// Does nothing when another handler holds the descriptor number now.
    public func deregister(_ handler: any ReactorHandler, fd: Int32) {
        assertOnQueue()
        let index = Int(fd)
        guard index >= 0, index < table.count, let current = table[index], current === handler else { return }
        epoll.remove(fd)
        table[index] = nil
    }

    /// Calls `body` for every registered handler (shutdown, draining). On the queue;
    /// `body` may deregister handlers.
    public func forEachHandler(_ body: (any ReactorHandler) -> Void) {
        assertOnQueue()
        for case let handler? in table { body(handler) }
    }

    /// Serves every descriptor that is ready now.
    ///
    /// Polls again after a batch: events that arrived while it was served are taken now
    /// instead of after another Dispatch wake-up (a few rounds at most, for fairness). A
    /// batch that took long ends the wake-up at once, so work queued behind it (new
    /// connections, late answers) is not held up by further rounds; epoll still reports
    /// what is left.
    private func serveReady() {
        let started = Self.now()
        for _ in 0..<4 {
            isServing = true
            let ready = epoll.poll { fd, events in
                let index = Int(fd)
                guard index >= 0, index < table.count, let handler = table[index] else { return }
                handler.handle(events)
            }
            isServing = false
            if ready > 0 { roundEnded?() }
            if ready == 0 || Self.now() &- started > Self.longBatch { return }
        }
    }

    /// Past this (2 ms), a wake-up serves no further batch.
    private static let longBatch: UInt64 = 2_000_000

    /// Tells handlers whose deadline passed.
    private func sweep() {
        let now = Self.now()
        for case let handler? in table {
            let deadline = handler.deadline
            if deadline != 0 && now >= deadline { handler.deadlinePassed() }
        }
    }

    @inline(__always)
    private func assertOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }
}
