import HTTP
import HTTP2

/// HTTP/2 on one connection (h2c by prior knowledge or after `Upgrade: h2c`): bytes go to
/// an ``HTTP2ServerSession``; each complete stream goes to the same responder HTTP/1.1
/// uses, and its answer, whenever it comes, is framed on that stream.
///
/// Confined to the connection's loop queue; the reply closures it hands out hop there.
final class HTTP2Handler: ConnectionHandler, @unchecked Sendable {
    private struct InFlight {
        /// The request without its body, for `finalize` and the log.
        var request: HTTPRequest
        var startedAt: UInt64
    }

    let connection: Connection
    private let session: HTTP2ServerSession?
    private var inFlight: [Int32: InFlight] = [:]
    private var closed = false
    private var draining = false
    /// The client sent EOF: streams still waiting for its bytes never finish.
    private var peerGone = false
    private let logging: Bool

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
        HTTP2ServerSession.Configuration(maxRequestBodyBytes: context.configuration.limits.maxBodyBytes)
    }

    var activity: ConnectionActivity {
        if !inFlight.isEmpty { return .busy }
        if let session, session.openStreamCount > 0 { return .readingBody }
        return .idle
    }

    // MARK: Input

    func received(_ bytes: UnsafeRawBufferPointer) {
        guard let session, !closed else { return }
        for event in session.feed(bytes) {
            switch event {
            case .request(let stream, let request):
                dispatch(request, on: stream)
            case .connectionError:
                break   // the session queued a GOAWAY; `pump` closes once it is written
            }
        }
        pump()
    }

    private func dispatch(_ request: HTTPRequest, on stream: Int32) {
        var stored = request
        stored.body = []
        inFlight[stream] = InFlight(request: stored, startedAt: logging ? ServerContext.now() : 0)
        let loop = connection.loop
        connection.context.responder.respond(to: request) { [self] reply in
            if loop.isCurrent {
                self.deliver(reply, on: stream)
            } else {
                loop.queue.async { self.deliver(reply, on: stream) }
            }
        }
    }

    // MARK: Output

    private func deliver(_ reply: HTTPReply, on stream: Int32) {
        guard !closed, let session, let entry = inFlight.removeValue(forKey: stream) else { return }
        switch reply {
        case .close:
            session.reset(stream)
            log(entry, status: nil, bytes: 0)
        case .response(var response):
            connection.context.finalize(&response, for: entry.request, date: connection.loop.date.current())
            session.respond(response, to: stream)
            log(entry, status: response.status, bytes: entry.request.method == "HEAD" ? 0 : response.body.count)
        }
        pump()
        connection.flushSoon()
    }

    /// Moves the session's frames to the connection; closes when the session is done.
    private func pump() {
        guard let session, !closed else { return }
        session.drainOutput(into: &connection.output)
        if session.isFinished || (inFlight.isEmpty && (peerGone || (draining && session.openStreamCount == 0))) {
            connection.closeAfterFlush()
        }
    }

    private func log(_ entry: InFlight, status: Int?, bytes: Int) {
        guard logging, let sink = connection.context.log else { return }
        let elapsed = ServerContext.now() &- entry.startedAt
        sink(RequestLogEntry(method: entry.request.method, target: entry.request.target, status: status,
                             bytes: bytes, microseconds: Int(elapsed / 1000), version: .http2))
    }

    // MARK: Ending

    func peerClosed() {
        // The client sends nothing more; answers already owed still go out.
        peerGone = true
        session?.terminate(graceful: true)
        pump()
    }

    func drain() {
        draining = true
        session?.terminate(graceful: true)
        pump()
    }

    func connectionClosed() {
        closed = true
        inFlight = [:]
    }
}

/// Builds ``HTTP2Handler``s for ``HTTP1Handler``'s two hand-over points.
struct HTTP2HandlerFactory: HTTP2ConnectionFactory {
    func makeHandler(for connection: Connection) -> any ConnectionHandler {
        HTTP2Handler(connection: connection)
    }

    func makeUpgradedHandler(for connection: Connection, request: HTTPRequest, settings: String) -> any ConnectionHandler {
        var request = request
        request.headers.set("HTTP2-Settings", settings)
        return HTTP2Handler(connection: connection, upgrading: request)
    }
}
