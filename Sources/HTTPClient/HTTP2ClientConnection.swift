import Dispatch
import HTTP
import HTTP2
import Reactor
import Sockets

/// One HTTP/2 client connection on a ``ClientSocket``: h2c with prior knowledge, or TLS where
/// the server must agree to `h2` by ALPN. An ``HTTP2ClientSession`` does the framing; this class
/// maps streams to the caller's request ids and keeps the time limits.
///
/// Connecting ends with the peer's SETTINGS, not with TCP (a peer that accepts and never speaks
/// HTTP/2 would otherwise hold every queued request), all within the connect timeout. Each
/// request must be answered within the request timeout; when nothing at all was read since a
/// late request was sent, the whole connection is stalled and closes. Every request sent is
/// answered by exactly one `.response` or `.streamFailed`, or listed in `.closed(unfinished:)`.
///
/// ```swift
/// let connection = HTTP2ClientConnection(reactor: reactor, label: "http://127.0.0.1:9443",
///     authority: "127.0.0.1:9443", addresses: addresses, security: .plaintext,
///     configuration: .init()) { event in
///     if case .ready = event { _ = connection.send(request, requestID: 1); connection.flush() }
/// }
/// connection.start()            // on reactor.queue; events arrive there, never before it returns
/// ```
///
/// Confined to its reactor's queue: every method is called there and every event is reported
/// there. (`@unchecked Sendable`: only handed to closures that run on that queue.)
///
/// Its stored state is confined to one queue and touched for every pushed token, so each stored
/// property is `@exclusivity(unchecked)`: release builds skip the run-time exclusivity checks
/// there without an unsafe build flag, which SwiftPM refuses in a dependency pinned by version.
public final class HTTP2ClientConnection: ClientSocketDelegate, @unchecked Sendable {
    public enum Event {
        /// The peer's SETTINGS arrived: requests may be sent, up to `maxConcurrentStreams`.
        case ready(maxConcurrentStreams: Int)
        case settingsChanged(maxConcurrentStreams: Int)
        case response(requestID: Int, HTTPResponse)
        /// The stream ended without an answer (reset, or no answer in time).
        case streamFailed(requestID: Int, reason: String)
        /// GOAWAY: send nothing new here.
        case goingAway
        /// The connection is over (connect failed, peer closed, stalled, protocol error).
        case closed(reason: String, unfinished: [Int])
    }

    /// Time limits and the largest answer body taken.
    public struct Configuration: Sendable {
        /// From starting the TCP connect until the peer's SETTINGS (TLS handshake included);
        /// nil: no limit, for a peer in this process (see ``requestTimeout``).
        public var connectTimeout: Duration? = .seconds(2)
        /// From sending a request until its answer; nil: no limit. Only for a peer in this
        /// process that answers every request: its answers come whenever the machine schedules
        /// it, and a wall-clock limit would turn a busy machine into failed requests.
        public var requestTimeout: Duration? = .seconds(10)
        public var maxResponseBodyBytes = 64 << 10
        /// The response fields kept (lowercase names); nil keeps every one.
        public var keptResponseFields: [String]?

        public init(
            connectTimeout: Duration? = .seconds(2),
            requestTimeout: Duration? = .seconds(10),
            maxResponseBodyBytes: Int = 64 << 10,
            keptResponseFields: [String]? = nil
        ) {
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.maxResponseBodyBytes = maxResponseBodyBytes
            self.keptResponseFields = keptResponseFields
        }

        /// The limits in the reactor's unit, monotonic nanoseconds; 0: none.
        var connectTimeoutNanoseconds: UInt64 { connectTimeout.map(HTTPClient.Configuration.nanoseconds) ?? 0 }
        var requestTimeoutNanoseconds: UInt64 { requestTimeout.map(HTTPClient.Configuration.nanoseconds) ?? 0 }

        /// The deadline `limit` nanoseconds after `now`; 0 (none) when there is no limit.
        static func deadline(_ limit: UInt64, after now: UInt64) -> UInt64 { limit == 0 ? 0 : now &+ limit }
    }

    /// `open` from the transport being ready (TCP for h2c, a handshake with ALPN h2 for TLS);
    /// the connect deadline still runs until the peer's SETTINGS arrive (`.ready`).
    public enum Phase: Sendable { case idle, connecting, open, closed }

    struct Deadline: Equatable, Sendable {
        var streamID: Int32
        var sentAt: UInt64
        var deadline: UInt64
    }

    public let reactor: Reactor
    /// How reasons name the peer: the gateway's URL.
    public let label: String
    public let configuration: Configuration
    private let security: TransportSecurity
    private let sessionConfiguration: HTTP2ClientSession.Configuration
    /// ``Configuration/requestTimeout`` in nanoseconds (0: none), converted once: every request
    /// reads it, and a Duration's conversion is ~180 instructions of 128-bit arithmetic.
    private let requestLimit: UInt64
    private let onEvent: (Event) -> Void
    @exclusivity(unchecked) private var socket: ClientSocket?
    @exclusivity(unchecked) private var session: HTTP2ClientSession?
    @exclusivity(unchecked) public private(set) var phase = Phase.idle
    /// Request ids by stream id: an index, not a hash, per lookup.
    @exclusivity(unchecked) private var streams = DenseTable<Int>()
    @exclusivity(unchecked) private var deadlines = FIFO<Deadline>()
    @exclusivity(unchecked) private var connectDeadline: UInt64 = 0
    @exclusivity(unchecked) private var lastReadAt: UInt64 = 0
    @exclusivity(unchecked) private var settings = SettingsWatch()
    @exclusivity(unchecked) private var lastMaxStreams = 0
    @exclusivity(unchecked) private var output: [UInt8] = []

    /// The highest number of streams this connection ever had open at once.
    @exclusivity(unchecked) public private(set) var maxOpenStreams = 0
    public var openStreamCount: Int { streams.count }

    /// - Parameters:
    ///   - label: names the peer in every reason (a URL: "https://api.push.apple.com").
    ///   - authority: `:authority` of every request that has no `Host` of its own.
    ///   - addresses: tried in order until one connects.
    public init(
        reactor: Reactor,
        label: String,
        authority: String,
        addresses: [SocketAddress],
        security: TransportSecurity,
        configuration: Configuration = Configuration(),
        onEvent: @escaping (Event) -> Void
    ) {
        self.reactor = reactor
        self.label = label
        self.configuration = configuration
        self.security = security
        self.onEvent = onEvent
        self.requestLimit = configuration.requestTimeoutNanoseconds
        sessionConfiguration = HTTP2ClientSession.Configuration(
            scheme: security.isTLS ? "https" : "http",
            defaultAuthority: authority,
            maxResponseBodyBytes: configuration.maxResponseBodyBytes,
            keptResponseFields: configuration.keptResponseFields
        )
        socket = ClientSocket(
            reactor: reactor,
            peer: authority,
            addresses: addresses,
            security: security,
            connectTimeout: configuration.connectTimeoutNanoseconds,
            delegate: self
        )
    }

    /// Starts connecting; the outcome arrives as `.ready` or `.closed`, never before this returns.
    public func start() {
        assertConfined()
        guard phase == .idle else { return }
        phase = .connecting
        connectDeadline = Configuration.deadline(configuration.connectTimeoutNanoseconds, after: Reactor.now())
        socket?.start()
    }

    /// Puts one request on a new stream; nil when sent, else why it could not be. It leaves with
    /// the next ``flush()`` (or the end of the current read).
    public func send(_ request: HTTPRequest, requestID: Int) -> String? {
        assertConfined()
        guard phase == .open, let session else { return "the connection to \(label) is not open" }
        do {
            opened(try session.submit(request), requestID: requestID)
            return nil
        } catch {
            return "HTTP/2 request to \(label) not sent: \(error)"
        }
    }

    /// ``send(_:requestID:)`` for a request made from `template` (its path followed by
    /// `pathSuffix`, with `body`): no header block is built per request.
    public func send(_ template: HTTP2RequestTemplate, pathSuffix: String, body: [UInt8], requestID: Int) -> String? {
        assertConfined()
        guard phase == .open, let session else { return "the connection to \(label) is not open" }
        do {
            opened(try session.submit(template, pathSuffix: pathSuffix, body: body), requestID: requestID)
            return nil
        } catch {
            return "HTTP/2 request to \(label) not sent: \(error)"
        }
    }

    private func opened(_ streamID: Int32, requestID: Int) {
        streams[Int(streamID)] = requestID
        maxOpenStreams = max(maxOpenStreams, streams.count)
        // Without a request limit nothing is ever due: no entry, so no sweep looks at it.
        guard requestLimit > 0 else { return }
        let now = Reactor.now()
        deadlines.append(Deadline(streamID: streamID, sentAt: now, deadline: now &+ requestLimit))
    }

    /// Hands whatever the session has ready to the socket, which writes it at once (or at the
    /// end of the event it is serving: many requests leave in one write).
    public func flush() {
        assertConfined()
        guard phase == .open, let session, let socket else { return }
        session.drainOutput(into: &output)
        guard !output.isEmpty else { return }
        socket.send(output)
        output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
    }

    /// Closes now; unfinished requests are reported in `.closed`.
    public func close(reason: String) {
        assertConfined()
        guard phase != .closed else { return }
        end(reason)
        socket?.close()
        socket = nil
    }

    private func end(_ reason: String) {
        phase = .closed
        let unfinished = streams.values
        streams.removeAll()
        deadlines = FIFO()
        session = nil
        onEvent(.closed(reason: reason, unfinished: unfinished))
    }

    // MARK: ClientSocketDelegate

    public func socketEstablished(_ socket: ClientSocket) {
        assertConfined()
        guard phase == .connecting else { return }
        if security.isTLS, socket.negotiatedProtocol != "h2" {
            let offered = socket.negotiatedProtocol.map { "'\($0)'" } ?? "no protocol"
            close(reason: "\(label) did not agree to HTTP/2 over TLS (ALPN chose \(offered); APNs and FCM need h2)")
            return
        }
        do {
            session = try HTTP2ClientSession(configuration: sessionConfiguration)
        } catch {
            close(reason: "HTTP/2 session for \(label) could not start: \(error)")
            return
        }
        phase = .open
        lastReadAt = Reactor.now()
        flush()
    }

    public func socket(_ socket: ClientSocket, received bytes: UnsafeRawBufferPointer) {
        assertConfined()
        guard phase == .open, let session else { return }
        lastReadAt = Reactor.now()
        settings.observe(bytes)
        session.feed(bytes) { handle($0) }
        guard phase == .open else { return }
        checkSettings()
        flush()
    }

    public func socketPeerClosed(_ socket: ClientSocket) {
        close(reason: "\(label) closed the connection")
    }

    public func socket(_ socket: ClientSocket, closedWith error: HTTPClientError?) {
        assertConfined()
        self.socket = nil
        guard phase != .closed else { return }
        end(error.map { describe($0, addresses: socket.addresses) } ?? "the connection to \(label) closed")
    }

    /// Until the peer's SETTINGS: the connect deadline; then the oldest unanswered request's.
    public var socketDeadline: UInt64 {
        guard settings.reported else { return connectDeadline }
        // Answered streams leave their entries behind; drop them from the front first.
        while let head = deadlines.first, streams[Int(head.streamID)] == nil { _ = deadlines.popFirst() }
        return deadlines.first?.deadline ?? 0
    }

    public func socketDeadlinePassed(_ socket: ClientSocket) {
        assertConfined()
        guard phase == .open else { return }
        let now = Reactor.now()
        if !settings.reported {
            guard connectDeadline != 0, now >= connectDeadline else { return }
            close(
                reason:
                    "connect to \(label) timed out after \(configuration.connectTimeoutNanoseconds / 1_000_000) ms: "
                    + "TCP connected but no HTTP/2 SETTINGS arrived"
            )
            return
        }
        while let head = deadlines.first, head.deadline <= now {
            _ = deadlines.popFirst()
            guard let requestID = streams[Int(head.streamID)] else { continue }
            let waited = "no answer from \(label) within \(requestLimit / 1_000_000) ms"
            if lastReadAt < head.sentAt {
                close(reason: waited + " (connection stalled)")
                return
            }
            streams[Int(head.streamID)] = nil
            session?.cancel(head.streamID)
            onEvent(.streamFailed(requestID: requestID, reason: waited))
            guard phase == .open else { return }
        }
        flush()
    }

    // MARK: Events

    private func handle(_ event: HTTP2ClientSession.Event) {
        guard phase == .open else { return }
        switch event {
        case .response(let streamID, let response):
            if let requestID = streams.removeValue(forKey: Int(streamID)) {
                onEvent(.response(requestID: requestID, response))
            }
        case .reset(let streamID, let code):
            if let requestID = streams.removeValue(forKey: Int(streamID)) {
                onEvent(.streamFailed(requestID: requestID, reason: "\(label) reset the stream (\(code))"))
            }
        case .goaway(_, let code):
            onEvent(.goingAway)
            if code != .noError, streams.isEmpty {
                close(reason: "\(label) sent GOAWAY (\(code))")
            }
        case .connectionError(let message):
            close(reason: "HTTP/2 error talking to \(label): \(message)")
        }
    }

    private func checkSettings() {
        guard settings.complete, let session else { return }
        let maxStreams = session.peerMaxConcurrentStreams
        if !settings.reported {
            settings.reported = true
            lastMaxStreams = maxStreams
            onEvent(.ready(maxConcurrentStreams: maxStreams))
        } else if maxStreams != lastMaxStreams {
            lastMaxStreams = maxStreams
            onEvent(.settingsChanged(maxConcurrentStreams: maxStreams))
        }
    }

    /// Debug builds check the confinement the `@unchecked Sendable` relies on.
    @inline(__always)
    private func assertConfined() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(reactor.queue))
        #endif
    }

    /// The socket's error in the words the connection's reasons use, naming `label`.
    private func describe(_ error: HTTPClientError, addresses: [SocketAddress]) -> String {
        switch error {
        case .connectFailed(_, let reason):
            // One address: its failure alone ("Connection refused"); several: each one's.
            if addresses.count == 1, let only = addresses.first {
                let prefix = "\(only): "
                if reason.hasPrefix(prefix) { return "connect to \(label) failed: \(reason.dropFirst(prefix.count))" }
            }
            return "connect to \(label) failed: \(reason)"
        case .connectTimedOut(_, let ms):
            return "connect to \(label) timed out after \(ms) ms"
        case .tlsFailed(_, let reason):
            return "TLS with \(label) failed: \(reason)"
        case .ioFailed(_, let reason):
            return "the connection to \(label) failed: \(reason)"
        default:
            return error.description
        }
    }
}

/// Notices when the peer's first frame (its SETTINGS, which the server preface must start
/// with) has been fully fed to the session, so the peer's limits are known.
struct SettingsWatch: Sendable {
    private var header: [UInt8] = []
    private var needed: Int?
    private var seen = 0
    var reported = false

    var complete: Bool { needed.map { seen >= $0 } ?? false }

    mutating func observe(_ bytes: UnsafeRawBufferPointer) {
        guard !complete else { return }
        var i = 0
        while header.count < 9 && i < bytes.count {
            header.append(bytes[i])
            i += 1
        }
        if needed == nil, header.count == 9 {
            needed = 9 + (Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2]))
        }
        seen += bytes.count
    }
}
