import Dispatch
import HTTP
import HTTP2

/// HTTP/2 on one connection (h2c by prior knowledge or after `Upgrade: h2c`): bytes go to
/// an ``HTTP2ServerSession``; each complete stream goes to the same responder HTTP/1.1
/// uses, and its answer, whenever it comes, is framed on that stream.
///
/// What a connection holds for its peer is bounded like HTTP/1.1's: while answers not yet
/// sent (held back by a closed flow-control window, or unread on the socket) pass
/// ``maxHeldResponseBytes``, complete requests wait unanswered, in order, and a request
/// whose stream is reset meanwhile costs nothing.
///
/// Confined to the connection's loop queue; the reply closures it hands out hop there.
///
/// Its stored state is confined to one queue and touched on every request, so each stored property
/// is `@exclusivity(unchecked)`: release builds skip the run-time exclusivity checks there
/// (callgrind: they were a tenth of the instructions of a request) without an unsafe build flag,
/// which SwiftPM refuses in a dependency pinned by version.
final class HTTP2Handler: ConnectionHandler, @unchecked Sendable {
    private struct InFlight {
        /// The request without its body, for `finalize` and the log.
        var request: HTTPRequest
        var startedAt: UInt64
    }

    /// Past this many unsent answer bytes in the session, new requests wait (the
    /// connection's own backlog is bounded by ``Connection/outputHighWater`` beside it).
    static let maxHeldResponseBytes = Connection.outputHighWater

    let connection: Connection
    private let session: HTTP2ServerSession?
    @exclusivity(unchecked) private var inFlight: [Int32: InFlight] = [:]
    /// Complete requests waiting for the held answers to drain, oldest first from `waitingHead`.
    @exclusivity(unchecked) private var waiting: [(stream: Int32, request: HTTPRequest)] = []
    @exclusivity(unchecked) private var waitingHead = 0
    @exclusivity(unchecked) private var pumping = false
    @exclusivity(unchecked) private var closed = false
    @exclusivity(unchecked) private var draining = false
    /// The client sent EOF: streams still waiting for its bytes never finish.
    @exclusivity(unchecked) private var peerGone = false
    private let logging: Bool
    /// Streamed bodies being sent, by stream (``HTTPReply/stream``).
    @exclusivity(unchecked) private var outgoing: [Int32: ResponseStream] = [:]
    /// Beats quiet streams and notices ones the client reset; runs while `outgoing` is not empty.
    @exclusivity(unchecked) private var heartbeat: DispatchSourceTimer?
    @exclusivity(unchecked) private var quietStreams: Set<Int32> = []
    /// The stream whose request the responder is handling inside ``dispatch``. Its answer, if
    /// given then, waits in `inlineReply` until `respond` returns, when the responder no longer
    /// holds a copy of it, so finalize's `Date` (and a 304's `Vary`) go in without copying the fields.
    @exclusivity(unchecked) private var respondingStream: Int32?
    @exclusivity(unchecked) private var inlineReply: HTTPReply?

    /// A connection that opened with the client preface.
    init(connection: Connection) {
        self.connection = connection
        self.logging = connection.context.log != nil
        self.session = try? HTTP2ServerSession(configuration: Self.sessionConfiguration(connection.context))
        if session == nil { connection.closeAfterFlush() }
        pump()
    }

    /// A connection upgraded from HTTP/1.1: `request` continues as stream 1. The `101`
    /// is already written; a malformed `HTTP2-Settings` ends the connection with a GOAWAY.
    init(connection: Connection, upgrading request: HTTPRequest) {
        self.connection = connection
        self.logging = connection.context.log != nil
        let configuration = Self.sessionConfiguration(connection.context)
        if let session = try? HTTP2ServerSession(upgrading: request, configuration: configuration) {
            self.session = session
            var continued = request
            continued.version = .http2
            for name in ["Connection", "Upgrade", "HTTP2-Settings"] { continued.headers.remove(name) }
            dispatch(continued, on: HTTP2ServerSession.upgradeStreamID)
        } else {
            self.session = try? HTTP2ServerSession(configuration: configuration)
            session?.terminate(graceful: false, code: .protocolError)
        }
        pump()
        if session == nil { connection.closeAfterFlush() }
    }

    static func sessionConfiguration(_ context: ServerContext) -> HTTP2ServerSession.Configuration {
        HTTP2ServerSession.Configuration(
            limits: context.configuration.limits,
            maxBufferedBodyBytes: context.configuration.maxBufferedBodyBytesPerConnection,
            bodyBudget: context.bodyBudget
        )
    }

    var activity: ConnectionActivity {
        if !inFlight.isEmpty || !outgoing.isEmpty { return .busy }
        if let session, session.openStreamCount > 0 { return .readingBody }
        return .idle
    }

    var requestStartedAt: UInt64? { session?.oldestIncompleteRequestStart }

    /// No HTTP/1.1 bytes on an HTTP/2 connection: it just closes.
    var timeoutResponse: HTTPResponse? { nil }

    // MARK: Input

    func received(_ bytes: UnsafeRawBufferPointer) {
        guard let session, !closed else { return }
        connection.assertOnLoop()
        for event in session.feed(bytes, now: ServerContext.now()) {
            switch event {
            case .request(let stream, let request):
                waiting.append((stream, request))
            case .rejected(let stream, let error):
                var stored = HTTPRequest(method: "-", target: "-")
                stored.version = .http2
                var response = ProblemResponse.make(error)
                finalize(&response, for: stored)
                session.respond(response, to: stream)
                log(
                    InFlight(request: stored, startedAt: logging ? ServerContext.now() : 0),
                    status: response.status,
                    bytes: response.body.count
                )
            case .connectionError:
                break  // the session queued a GOAWAY; `pump` closes once it is written
            }
        }
        pump()
    }

    private func dispatch(_ request: HTTPRequest, on stream: Int32) {
        var stored = request
        stored.body = []
        inFlight[stream] = InFlight(request: stored, startedAt: logging ? ServerContext.now() : 0)
        let loop = connection.loop
        respondingStream = stream
        connection.context.responder.respond(to: request) { [self] reply in
            if loop.isCurrent {
                self.deliver(reply, on: stream)
            } else {
                loop.runOnLoop { self.deliver(reply, on: stream) }
            }
        }
        respondingStream = nil
        loop.responded()
        if let reply = inlineReply.take() { deliver(reply, on: stream) }
    }

    /// Whether a waiting request may be answered now: the peer reads what it was sent
    /// and the session holds fewer unsent answer bytes than the bound.
    private func mayDispatch(_ session: HTTP2ServerSession) -> Bool {
        !closed && !connection.isOutputBacklogged && session.queuedResponseBytes < Self.maxHeldResponseBytes
    }

    /// Hands waiting requests to the responder while ``mayDispatch(_:)`` holds.
    private func dispatchWaiting(_ session: HTTP2ServerSession) {
        while waitingHead < waiting.count && mayDispatch(session) {
            let (stream, request) = waiting[waitingHead]
            waitingHead += 1
            // Reset while it waited: no answer is wanted.
            if session.isStreamOpen(stream) { dispatch(request, on: stream) }
        }
        waiting.dropConsumedPrefix(&waitingHead, threshold: 64)
    }

    // MARK: Output

    private func deliver(_ reply: consuming HTTPReply, on stream: Int32) {
        if stream == respondingStream {
            if inlineReply == nil { inlineReply = reply }  // dispatch delivers it once respond returns
            return
        }
        guard !closed, let session, let entry = inFlight.removeValue(forKey: stream) else { return }
        connection.assertOnLoop()
        switch consume reply {
        case .close:
            session.reset(stream)
            log(entry, status: nil, bytes: 0)
        case .stream(var head, let body):
            finalize(&head, for: entry.request)
            log(entry, status: head.status, bytes: 0)
            if session.respondStreaming(head, to: stream), entry.request.method != "HEAD" {
                startStreaming(body, on: stream)
            } else {
                body.end()
            }
        case .response(var response):
            finalize(&response, for: entry.request)
            session.respond(response, to: stream)
            log(entry, status: response.status, bytes: entry.request.method == "HEAD" ? 0 : response.body.count)
        }
        pump()
        connection.flushSoon()
    }

    /// The server's last touches, and `Date` as a field: the session frames heads from them.
    private func finalize(_ response: inout HTTPResponse, for request: HTTPRequest) {
        connection.context.finalize(&response, for: request)
        response.headers.add("Date", connection.loop.date.current())
    }

    /// Answers what may be answered and moves the session's frames to the connection (not
    /// while the peer leaves a backlog unread), then closes when the session is done.
    /// Answers given at once land here again: `pumping` keeps that from recursing.
    private func pump() {
        guard let session, !closed, !pumping else { return }
        pumping = true
        defer { pumping = false }
        repeat {
            dispatchWaiting(session)
            if !connection.isOutputBacklogged { connection.enqueue { session.drainOutput(into: &$0) } }
        } while waitingHead < waiting.count && mayDispatch(session)
        guard !closed else { return }
        let idle = inFlight.isEmpty && outgoing.isEmpty && waitingHead == waiting.count
        if session.isFinished || (idle && (peerGone || (draining && session.openStreamCount == 0))) {
            connection.closeAfterFlush()
        }
    }

    private func log(_ entry: InFlight, status: Int?, bytes: Int) {
        guard logging, let batch = connection.loop.requestLog else { return }
        let elapsed = ServerContext.now() &- entry.startedAt
        batch.record(
            RequestLogEntry(
                method: entry.request.method,
                target: entry.request.target,
                status: status,
                bytes: bytes,
                microseconds: Int(elapsed / 1000),
                version: .http2
            )
        )
    }

    // MARK: Ending

    func peerClosed() {
        connection.assertOnLoop()
        // The client sends nothing more; answers already owed still go out, streams end.
        peerGone = true
        session?.terminate(graceful: true)
        finishStreams()
        pump()
    }

    func drain() {
        connection.assertOnLoop()
        draining = true
        session?.terminate(graceful: true)
        finishStreams()
        pump()
    }

    func outputDrained() {
        connection.assertOnLoop()
        pump()
    }

    func connectionClosed() {
        connection.assertOnLoop()
        closed = true
        inFlight = [:]
        waiting = []
        waitingHead = 0
        for body in outgoing.values { body.end() }
        outgoing = [:]
        heartbeat?.cancel()
        heartbeat = nil
        session?.releaseBodies()
    }

    // MARK: Streams

    private func startStreaming(_ body: ResponseStream, on stream: Int32) {
        outgoing[stream] = body
        let loop = connection.loop
        body.attach { [weak self] in
            loop.queue.async { [weak self] in self?.pumpStream(stream) }
        }
        body.finishAfterLifetime(on: loop.queue)
        guard heartbeat == nil else { return }
        let interval = DispatchTimeInterval.nanoseconds(Int(body.heartbeatInterval.nanosecondsClamped))
        let timer = DispatchSource.makeTimerSource(queue: loop.queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(250))
        timer.setEventHandler { [weak self] in self?.beat() }
        heartbeat = timer
        timer.resume()
    }

    /// Moves what `stream`'s body holds into the session; a reader too slow for its flow
    /// control window (or gone) loses the stream.
    private func pumpStream(_ stream: Int32) {
        guard !closed, let session, let body = outgoing[stream] else { return }
        connection.assertOnLoop()
        let (bytes, ending) = body.take()
        quietStreams.remove(stream)
        let queued = ending == .overflowed ? nil : session.appendStreamBody(bytes, to: stream, end: ending == .finished)
        if queued == nil || queued! > StreamPump.maxBacklogBytes {
            session.cancelStreaming(stream)
            endStream(stream)
        } else if ending == .finished {
            endStream(stream)
        }
        pump()
        connection.flushSoon()
    }

    private func beat() {
        guard !closed, let session else { return }
        connection.assertOnLoop()
        for (stream, body) in outgoing {
            if !session.isOpen(stream) {
                endStream(stream)  // the client reset it
            } else if quietStreams.contains(stream) && !body.heartbeat.isEmpty {
                if session.appendStreamBody(body.heartbeat, to: stream) == nil { endStream(stream) }
            }
        }
        quietStreams = Set(outgoing.keys)
        pump()
        connection.flushSoon()
    }

    private func endStream(_ stream: Int32) {
        outgoing.removeValue(forKey: stream)?.end()
        if outgoing.isEmpty {
            heartbeat?.cancel()
            heartbeat = nil
        }
    }

    private func finishStreams() {
        guard let session else { return }
        for (stream, body) in outgoing {
            _ = session.appendStreamBody(body.take().bytes, to: stream, end: true)
            endStream(stream)
        }
    }
}

/// Builds ``HTTP2Handler``s for ``HTTP1Handler``'s two hand-over points.
struct HTTP2HandlerFactory: HTTP2ConnectionFactory {
    func makeHandler(for connection: Connection) -> any ConnectionHandler {
        HTTP2Handler(connection: connection)
    }

    func makeUpgradedHandler(
        for connection: Connection,
        request: HTTPRequest,
        settings: String
    ) -> any ConnectionHandler {
        var request = request
        request.headers.set("HTTP2-Settings", settings)
        return HTTP2Handler(connection: connection, upgrading: request)
    }
}
