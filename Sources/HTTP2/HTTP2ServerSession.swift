import CNghttp2
import HTTP

/// The server side of one HTTP/2 connection, fed bytes and asked for bytes: nghttp2 does
/// framing, HPACK and flow control, the owner does the socket I/O on one serial queue.
///
/// ```swift
/// let session = try HTTP2ServerSession()
/// for event in session.feed(received) {
///     if case .request(let stream, let request) = event {
///         session.respond(HTTPResponse(status: 200, body: Array("hi".utf8)), to: stream)
///     }
/// }
/// write(session.takeOutput())
/// if session.isFinished { close() }
/// ```
///
/// Not thread-safe: confine each session to its connection's queue.
///
/// Its stored state is confined to one queue and touched on every request, so each stored property
/// is `@exclusivity(unchecked)`: release builds skip the run-time exclusivity checks there
/// (callgrind: they were a tenth of the instructions of a request) without an unsafe build flag,
/// which SwiftPM refuses in a dependency pinned by version.
public final class HTTP2ServerSession {
    /// Limits advertised to and enforced on the client.
    public struct Configuration: Sendable {
        /// SETTINGS_MAX_CONCURRENT_STREAMS; extra streams are refused with REFUSED_STREAM.
        public var maxConcurrentStreams: UInt32
        /// Body, `:path` and header-section limits: HTTP/1.1's, answered with the same
        /// statuses (413, 414, 431) through ``Event/rejected(streamID:_:)``.
        public var limits: HTTPLimits
        /// SETTINGS_INITIAL_WINDOW_SIZE for request bodies: what one request may carry (its
        /// body limit), so a stream never holds more than it could use.
        public var initialWindowSize: UInt32
        /// Request-body bytes this connection may hold at once, over all its streams (each
        /// stream's window alone would let 128 streams hold 128 MiB). A stream whose data would
        /// pass it is answered 503 and reset, its bytes dropped.
        public var maxBufferedBodyBytes: Int
        /// The server-wide budget the connection's body bytes are also taken from (many
        /// connections each under their own bound must still fit in memory); nil: none.
        public var bodyBudget: BodyBudget?

        public init(
            maxConcurrentStreams: UInt32 = 128,
            limits: HTTPLimits = HTTPLimits(),
            initialWindowSize: UInt32? = nil,
            maxBufferedBodyBytes: Int = 4 << 20,
            bodyBudget: BodyBudget? = nil
        ) {
            self.maxConcurrentStreams = maxConcurrentStreams
            self.limits = limits
            // At least HTTP/2's default (65,535), at most what a body may be (HTTP/2's maximum).
            self.initialWindowSize =
                initialWindowSize ?? UInt32(min(max(limits.maxBodyBytes, 65_535), 0x7FFF_FFFF))
            self.maxBufferedBodyBytes = max(maxBufferedBodyBytes, limits.maxBodyBytes)
            self.bodyBudget = bodyBudget
        }
    }

    public enum Event: Sendable {
        /// A complete request (headers and body) arrived on `streamID`; answer with
        /// `respond(_:to:)` or `reset(_:)`, now or later.
        case request(streamID: Int32, HTTPRequest)
        /// The request on `streamID` broke a limit; answer it with the error's status, as
        /// HTTP/1.1 would (the stream stays open for that answer).
        case rejected(streamID: Int32, HTTPParseError)
        /// The peer broke the protocol; a GOAWAY is queued. Flush the output, then close.
        case connectionError(String)
    }

    /// The stream an `Upgrade: h2c` request continues on (RFC 9113 §3.2 of RFC 7540).
    public static let upgradeStreamID: Int32 = 1

    public let configuration: Configuration
    let session: OpaquePointer
    @exclusivity(unchecked) var streams = StreamTable<ServerStream>()
    /// The stream whose request header block is being decoded: nghttp2 calls back once per
    /// field, and each dictionary look-up hashed the stream id (about 100 instructions).
    @exclusivity(unchecked) var decodingStream: (id: Int32, stream: ServerStream)?
    @exclusivity(unchecked) var events: [Event] = []
    @exclusivity(unchecked) var failed = false
    /// Each answer's header section is laid out here (``respond(_:to:)``), reused.
    @exclusivity(unchecked) var headBlock = HeaderBlock()
    /// When the bytes being fed arrived (monotonic ns, from the owner): stamps new streams.
    @exclusivity(unchecked) var now: UInt64 = 0
    /// Response body bytes accepted by ``respond(_:to:)`` and not yet framed.
    @exclusivity(unchecked) public internal(set) var queuedResponseBytes = 0
    /// Request-body bytes held by this connection's open streams (capacity reserved for them),
    /// from their first byte until the stream closes.
    @exclusivity(unchecked) public internal(set) var bufferedBodyBytes = 0

    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.session = try Self.makeSession()
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        var entries = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: configuration.maxConcurrentStreams
            ),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                value: configuration.initialWindowSize
            ),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
        ]
        let rv = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
        if rv != 0 { throw HTTP2Error.library(Int(rv), "submitting SETTINGS") }
    }

    /// A session continuing an HTTP/1.1 request that asked for `Upgrade: h2c`. Write
    /// `101 Switching Protocols`, then this session's output; answer `request` on
    /// `upgradeStreamID`. Throws when the `HTTP2-Settings` header is missing or malformed.
    public convenience init(upgrading request: HTTPRequest, configuration: Configuration = Configuration()) throws {
        guard let header = request.headers["HTTP2-Settings"], let payload = Base64URL.decode(header, .lenient) else {
            throw HTTP2Error("Upgrade: h2c needs one HTTP2-Settings header in base64url")
        }
        try self.init(configuration: configuration)
        let isHead = request.method == "HEAD"
        let rv = payload.withUnsafeBufferPointer { buf in
            nghttp2_session_upgrade2(session, buf.baseAddress, buf.count, isHead ? 1 : 0, nil)
        }
        if rv != 0 { throw HTTP2Error.library(Int(rv), "upgrading to h2c") }
        let stream = ServerStream()
        stream.method = request.method
        stream.delivered = true
        streams[Self.upgradeStreamID] = stream
    }

    deinit {
        // nghttp2 calls no stream-close callback here: give back what open streams still hold.
        for stream in streams.liveValues { release(stream) }
        nghttp2_session_del(session)
    }

    /// Makes room for `length` more body bytes on `stream`, taking the capacity it grows by
    /// from this connection's bound and the server's budget; false (nothing taken) when either
    /// is spent.
    func reserveBody(_ length: Int, on stream: ServerStream) -> Bool {
        let needed = stream.body.count + length
        guard needed > stream.chargedBytes else { return true }
        // Grown by doubling, as Array would, but never past the body limit, and paid for first.
        let target = min(max(needed, stream.chargedBytes * 2), configuration.limits.maxBodyBytes)
        let extra = target - stream.chargedBytes
        guard bufferedBodyBytes + extra <= configuration.maxBufferedBodyBytes else { return false }
        if let budget = configuration.bodyBudget, !budget.reserve(extra) { return false }
        bufferedBodyBytes += extra
        stream.chargedBytes = target
        stream.body.reserveCapacity(target)
        return true
    }

    /// The connection closed: every open stream's body is dropped and its bytes given back now,
    /// not when the session is freed (the server then hands the freed memory to the kernel).
    public func releaseBodies() {
        for stream in streams.liveValues {
            stream.body = []
            release(stream)
        }
    }

    /// Gives back what `stream` holds against the bounds (its body is gone or handed over
    /// and answered).
    func release(_ stream: ServerStream) {
        guard stream.chargedBytes > 0 else { return }
        bufferedBodyBytes -= stream.chargedBytes
        configuration.bodyBudget?.release(stream.chargedBytes)
        stream.chargedBytes = 0
    }

    /// The connection or the server holds as many unfinished bodies as it may: `streamID` is
    /// answered 503 at once and its further data dropped, so uploads that never end cost
    /// nothing more, and a client can retry later.
    func refuseBody(on streamID: Int32, _ stream: ServerStream) {
        stream.bodyRefused = true
        stream.delivered = true
        stream.body = []
        release(stream)
        events.append(.rejected(streamID: streamID, BodyBudget.exhausted))
    }

    /// Whether an `HTTP2-Settings` header can start an `Upgrade: h2c`: base64url of whole
    /// 6-byte settings with values HTTP/2 allows. Check before writing `101`, so a bad one is
    /// answered as plain HTTP/1.1 rather than with a connection error.
    public static func acceptsUpgradeSettings(_ header: String) -> Bool {
        guard let payload = Base64URL.decode(header, .lenient), payload.count % 6 == 0 else { return false }
        var i = 0
        while i < payload.count {
            let id = UInt16(payload[i]) << 8 | UInt16(payload[i + 1])
            let value = payload[(i + 2)..<(i + 6)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            switch id {
            case 0x2: if value > 1 { return false }  // ENABLE_PUSH
            case 0x4: if value > 0x7FFF_FFFF { return false }  // INITIAL_WINDOW_SIZE
            case 0x5: if value < 16_384 || value > 16_777_215 { return false }  // MAX_FRAME_SIZE
            default: break
            }
            i += 6
        }
        return true
    }

    /// Hands received bytes to nghttp2 and returns the requests they completed. `now`
    /// (monotonic nanoseconds) dates the streams they open, for
    /// ``oldestIncompleteRequestStart``.
    public func feed(_ bytes: UnsafeRawBufferPointer, now: UInt64 = 0) -> [Event] {
        self.now = now
        guard !failed else { return takeEvents() }
        if let code = NGHTTP2Session.receive(bytes, into: session) {
            fail(HTTP2Error.library(code, "reading HTTP/2 input"))
        }
        return takeEvents()
    }

    /// Convenience for tests and small inputs.
    public func feed(_ bytes: [UInt8], now: UInt64 = 0) -> [Event] {
        bytes.withUnsafeBytes { feed($0, now: now) }
    }

    /// Events raised outside `feed` (none today for the server; kept symmetric with the client).
    ///
    /// A request whose stream the client already reset (in the same input, as a rapid
    /// reset attack does) is dropped here: nobody is left to read its answer.
    public func takeEvents() -> [Event] {
        guard !events.isEmpty else { return [] }
        defer { events.removeAll(keepingCapacity: true) }
        return events.filter { event in
            switch event {
            case .request(let streamID, _), .rejected(let streamID, _): return streams[streamID] != nil
            case .connectionError: return true
            }
        }
    }

    /// Appends every frame nghttp2 has ready to `buffer`, ready for one write.
    public func drainOutput(into buffer: inout [UInt8]) {
        guard !failed || nghttp2_session_want_write(session) != 0 else { return }
        if let code = NGHTTP2Session.drainOutput(of: session, into: &buffer) {
            failed = true
            events.append(.connectionError(HTTP2Error.library(code, "writing HTTP/2 output").message))
        }
    }

    /// The frames ready to write, as one array.
    public func takeOutput() -> [UInt8] {
        var out: [UInt8] = []
        drainOutput(into: &out)
        return out
    }

    /// Queues `response` on `streamID`. Returns false when the stream is gone (the client
    /// reset it or the connection ended), which makes a late answer harmless.
    @discardableResult
    public func respond(_ response: HTTPResponse, to streamID: Int32) -> Bool {
        guard let stream = streams[streamID], !stream.responded else { return false }
        stream.responded = true
        let bodyAllowed = !(100...199).contains(response.status) && response.status != 204 && response.status != 304
        let sendsBody = bodyAllowed && stream.method != "HEAD" && !response.body.isEmpty
        // The session's one block, emptied: nghttp2 copies the fields before submit returns.
        headBlock.reset()
        headBlock.addStatus(response.status)
        var hasLength = false
        for field in response.headers where !HeaderBlock.isConnectionSpecific(field.name) {
            if HTTPHeadersNames.equal("content-length", field.name) {
                if !bodyAllowed { continue }
                hasLength = true
            }
            headBlock.add(field.name, field.value)
        }
        if bodyAllowed && !hasLength { headBlock.addContentLength(response.body.count) }
        let rv: Int32
        if sendsBody {
            stream.responseBody = response.body
            stream.responseOffset = 0
            queuedResponseBytes += response.body.count
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: serverReadBody)
            rv = headBlock.withNameValues { nghttp2_submit_response(session, streamID, $0, $1, &provider) }
        } else {
            rv = headBlock.withNameValues { nghttp2_submit_response(session, streamID, $0, $1, nil) }
        }
        return rv == 0
    }

    /// Queues the head of a streamed response on `streamID`; its body follows through
    /// ``appendStreamBody(_:to:end:)``. False when the stream is gone.
    @discardableResult
    public func respondStreaming(_ head: HTTPResponse, to streamID: Int32) -> Bool {
        guard let stream = streams[streamID], !stream.responded else { return false }
        stream.responded = true
        var block = HeaderBlock(capacity: head.headers.count + 1)
        block.addStatus(head.status)
        for field in head.headers
        where !HeaderBlock.isConnectionSpecific(field.name)
            && !HTTPHeadersNames.equal("content-length", field.name)
        {
            block.add(field.name, field.value)
        }
        guard stream.method != "HEAD" else {
            return block.withNameValues { nghttp2_submit_response(session, streamID, $0, $1, nil) } == 0
        }
        stream.streaming = true
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: serverReadBody)
        return block.withNameValues { nghttp2_submit_response(session, streamID, $0, $1, &provider) } == 0
    }

    /// Adds bytes to a streamed body (`end`: the last ones). Returns the bytes still waiting
    /// for flow control on that stream, or nil when the stream is gone (reset or closed).
    @discardableResult
    public func appendStreamBody(_ bytes: [UInt8], to streamID: Int32, end: Bool = false) -> Int? {
        guard let stream = streams[streamID], stream.streaming, !stream.streamEnded else { return nil }
        if stream.responseOffset > 0 && stream.responseOffset * 2 >= stream.responseBody.count {
            stream.responseBody.removeFirst(stream.responseOffset)
            stream.responseOffset = 0
        }
        stream.responseBody.append(contentsOf: bytes)
        if end { stream.streamEnded = true }
        _ = nghttp2_session_resume_data(session, streamID)
        return stream.responseBody.count - stream.responseOffset
    }

    /// Resets a streamed response mid-body (its reader is too slow, or gone).
    public func cancelStreaming(_ streamID: Int32) {
        guard let stream = streams[streamID], stream.streaming else { return }
        stream.streamEnded = true
        _ = nghttp2_submit_rst_stream(
            session,
            UInt8(NGHTTP2_FLAG_NONE.rawValue),
            streamID,
            HTTP2ErrorCode.cancel.rawValue
        )
    }

    /// Whether `streamID` is still open (the client has not reset it).
    public func isOpen(_ streamID: Int32) -> Bool { streams[streamID] != nil }

    /// Resets `streamID` without an answer (`HTTPReply.close` on HTTP/2).
    @discardableResult
    public func reset(_ streamID: Int32, code: HTTP2ErrorCode = .internalError) -> Bool {
        guard let stream = streams[streamID], !stream.responded else { return false }
        stream.responded = true
        return nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, code.rawValue) == 0
    }

    /// Sends GOAWAY. Graceful: streams already started finish and the session ends when they
    /// are answered. Not graceful: the session ends once the GOAWAY is written.
    public func terminate(graceful: Bool, code: HTTP2ErrorCode = .noError) {
        guard !failed else { return }
        if graceful {
            let last = nghttp2_session_get_last_proc_stream_id(session)
            _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, code.rawValue, nil, 0)
        } else {
            _ = nghttp2_session_terminate_session(session, code.rawValue)
        }
    }

    /// True when nothing is left to read or write: close the connection.
    public var isFinished: Bool {
        nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// True when frames are waiting for `drainOutput`.
    public var hasPendingOutput: Bool { nghttp2_session_want_write(session) != 0 }

    /// Streams opened by the client and not yet closed.
    public var openStreamCount: Int { streams.count }

    /// Whether `streamID` is still open (not reset by the client, not finished).
    public func isStreamOpen(_ streamID: Int32) -> Bool { streams[streamID] != nil }

    /// When the oldest request still arriving (headers or body unfinished) began, as the
    /// `now` of the `feed` that opened it; nil when every open stream's request is complete.
    public var oldestIncompleteRequestStart: UInt64? {
        var oldest: UInt64?
        for stream in streams.liveValues where !stream.delivered {
            if oldest.map({ stream.startedAt < $0 }) ?? true { oldest = stream.startedAt }
        }
        return oldest
    }

    func fail(_ error: HTTP2Error) {
        events.append(.connectionError(error.message))
        if nghttp2_session_terminate_session(session, HTTP2ErrorCode.protocolError.rawValue) != 0 {
            failed = true
        }
    }

    private static func makeSession() throws -> OpaquePointer {
        try NGHTTP2Session.make(role: "server", installCallbacks: installServerCallbacks) {
            session,
            callbacks,
            option in
            nghttp2_session_server_new2(session, callbacks, nil, option)
        }
    }
}

/// One client stream's request as it arrives, and the response body being sent.
final class ServerStream {
    @exclusivity(unchecked) var method = ""
    @exclusivity(unchecked) var path = ""
    @exclusivity(unchecked) var authority = ""
    @exclusivity(unchecked) var headers = HTTPHeaders()
    /// The header section's size in its HTTP/1.1 form (see ``HTTPLimits``).
    @exclusivity(unchecked) var headerBytes = 0
    @exclusivity(unchecked) var body: [UInt8] = []
    @exclusivity(unchecked) var startedAt: UInt64 = 0
    @exclusivity(unchecked) var targetTooLong = false
    @exclusivity(unchecked) var headersTooLarge = false
    @exclusivity(unchecked) var bodyTooLarge = false
    /// Refused for want of body memory (``HTTP2ServerSession/refuseBody(on:_:)``).
    @exclusivity(unchecked) var bodyRefused = false
    /// Body capacity taken from the connection's bound and the server's budget.
    @exclusivity(unchecked) var chargedBytes = 0
    @exclusivity(unchecked) var delivered = false
    @exclusivity(unchecked) var responded = false
    @exclusivity(unchecked) var responseBody: [UInt8] = []
    @exclusivity(unchecked) var responseOffset = 0
    /// A streamed body: an empty buffer defers (waits for more) until `streamEnded`.
    @exclusivity(unchecked) var streaming = false
    @exclusivity(unchecked) var streamEnded = false
}
