import Dispatch
import HTTP
import Sockets
import Synchronization

/// An HTTP/1.1 and h2c server that hands every request to one ``Responder``.
///
/// A Dispatch read source accepts connections; each goes to one of a few event loops
/// (about one per core: a serial queue, an epoll set behind one Dispatch source, one
/// shared read buffer), which serves every ready socket in a batch. Pipelined requests
/// are answered in order, also when the responder answers later or out of order; answers
/// given synchronously leave in one `send` per batch. Stalled clients are cut off by the
/// header-read and idle timeouts, which run on real monotonic time whatever clock the
/// application uses.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: app,
///                         log: RequestLogWriter())      // "GET /healthz 200 2B 87us" on stderr
/// let port = try server.start()
/// ...
/// server.stop(graceful: true) { print("stopped") }
/// ```
public final class HTTPServer: @unchecked Sendable {
    // Immutable after init, or guarded by `state`; `listenerFD` is set before the accept
    // source starts and read only on `acceptQueue`.
    public let configuration: Configuration
    let context: ServerContext
    private let loops: [EventLoop]
    private let acceptQueue = DispatchQueue(label: "lerix.http.accept")
    private let live = ConnectionCounter()
    private let state = Mutex(State())
    private var listenerFD: Int32 = -1
    private var nextLoop = 0
    /// Set once in `start()` before it runs; resumed and suspended only on `acceptQueue`.
    private var acceptSource: DispatchSourceRead?

    private struct State {
        var port: Int?
        var source: SourceBox?
        var started = false
        var stopping = false
        var listenerClosed = false
        var finished = false
        var completions: [@Sendable () -> Void] = []
    }

    /// - Parameters:
    ///   - log: where the request log lines go (one line per request, batched per event-loop
    ///     wake-up); nil for none.
    public init(
        configuration: Configuration = Configuration(),
        responder: any Responder,
        log: (any RequestLogSink)? = nil
    ) {
        self.configuration = configuration
        let context = ServerContext(
            configuration: configuration,
            responder: responder,
            log: log,
            http2: Self.makeHTTP2Factory(configuration)
        )
        self.context = context
        let live = self.live
        var loops: [EventLoop] = []
        for index in 0..<max(1, configuration.eventLoopCount) {
            do {
                loops.append(
                    try EventLoop(context: context, index: index) { live.value.subtract(1, ordering: .relaxed) }
                )
            } catch {
                // Out of descriptors already: `start()` reports it.
                break
            }
        }
        self.loops = loops
    }

    /// The bound port once started (the kernel's pick when configured with port 0).
    public var port: Int? { state.withLock { $0.port } }

    /// Connections open right now.
    public var connectionCount: Int { live.value.load(ordering: .relaxed) }

    /// Binds, listens and starts accepting. Returns the bound port.
    /// Throws ``SocketError`` (address in use, bad host) or ``HTTPServerError``.
    @discardableResult
    public func start() throws -> Int {
        try state.withLock { state in
            if state.started { throw HTTPServerError(message: "the server was already started") }
            state.started = true
        }
        if loops.isEmpty {
            throw HTTPServerError(message: "could not create an epoll instance (out of file descriptors?)")
        }
        Posix.raiseOpenFileLimit()
        let opened = try TCPListener.open(host: configuration.host, port: configuration.port)
        listenerFD = opened.fd
        let source = DispatchSource.makeReadSource(fileDescriptor: opened.fd, queue: acceptQueue)
        source.setEventHandler { [self] in acceptConnections() }
        source.setCancelHandler { [self] in
            Posix.close(opened.fd)
            state.withLock { $0.listenerClosed = true }
            finishStopIfDone()
        }
        state.withLock { state in
            state.port = opened.port
            state.source = SourceBox(source: source)
        }
        acceptSource = source
        for loop in loops { loop.start() }
        source.resume()
        return opened.port
    }

    private func acceptConnections() {
        for _ in 0..<256 {
            let fd: Int32
            do {
                guard let accepted = try Posix.accept(listenerFD) else { return }
                fd = accepted
            } catch {
                // Out of descriptors (EMFILE/ENFILE) or memory: back off instead of spinning.
                acceptSource?.suspend()
                acceptQueue.asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in acceptSource?.resume() }
                return
            }
            if live.value.load(ordering: .relaxed) >= configuration.maxConnections {
                Posix.close(fd)
                continue
            }
            try? Posix.setNoDelay(fd)
            live.value.add(1, ordering: .relaxed)
            let loop = loops[nextLoop]
            nextLoop = (nextLoop + 1) % loops.count
            loop.queue.async {
                loop.adopt(fd)
            }
        }
    }

    /// Stops accepting, then ends connections: gracefully, in-flight requests are answered
    /// (for at most ``Configuration/shutdownGracePeriod``) and idle keep-alive connections
    /// close at once; otherwise every connection closes now. `completion` runs (on a server
    /// queue) once every connection is closed. Calling it again only adds a completion.
    public func stop(graceful: Bool = true, completion: @escaping @Sendable () -> Void = {}) {
        let (alreadyStopping, source, started) = state.withLock { state in
            state.completions.append(completion)
            let already = state.stopping
            state.stopping = true
            if !state.started { state.listenerClosed = true }
            let source = state.source
            state.source = nil
            return (already, source, state.started)
        }
        if alreadyStopping {
            finishStopIfDone()
            return
        }
        source?.source.cancel()
        if started {
            for loop in loops {
                loop.queue.async { loop.shutdown(graceful: graceful) }
            }
            if graceful {
                let grace = configuration.shutdownGracePeriod.nanosecondsClamped
                acceptQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(grace, UInt64(Int.max))))) { [loops] in
                    for loop in loops { loop.queue.async { loop.shutdown(graceful: false) } }
                }
            }
        }
        watchForStopEnd()
    }

    /// ``stop(graceful:completion:)`` for async callers.
    public func stop(graceful: Bool = true) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            stop(graceful: graceful) { continuation.resume() }
        }
    }

    /// Polls the connection count while stopping (connections end on many queues).
    private func watchForStopEnd() {
        if finishStopIfDone() { return }
        acceptQueue.asyncAfter(deadline: .now() + .milliseconds(5)) { [self] in watchForStopEnd() }
    }

    @discardableResult
    private func finishStopIfDone() -> Bool {
        let completions: [@Sendable () -> Void]? = state.withLock { state in
            guard state.stopping, state.listenerClosed, !state.finished || !state.completions.isEmpty,
                live.value.load(ordering: .relaxed) == 0
            else { return nil }
            state.finished = true
            let completions = state.completions
            state.completions = []
            return completions
        }
        guard let completions else { return state.withLock { $0.finished } }
        for loop in loops { loop.queue.async { loop.stopSources() } }
        for completion in completions { completion() }
        return true
    }
}

/// The open-connection count, shared by the accept queue and every loop.
final class ConnectionCounter: Sendable {
    let value = Atomic<Int>(0)
}

/// Lets a Dispatch source sit in the server's locked state; DispatchSource calls are thread-safe.
final class SourceBox: @unchecked Sendable {
    let source: DispatchSourceRead
    init(source: DispatchSourceRead) { self.source = source }
}
