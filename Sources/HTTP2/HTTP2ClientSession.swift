import CNghttp2
import HTTP

/// The client side of one HTTP/2 connection, fed bytes and asked for bytes, for talking
/// to push gateways (APNs, FCM) and for tests. nghttp2 holds requests beyond the peer's
/// MAX_CONCURRENT_STREAMS until a stream closes, so `submit` may be called freely.
///
/// ```swift
/// let client = try HTTP2ClientSession()
/// let stream = try client.submit(HTTPRequest(method: "GET", target: "/healthz",
///                                            headers: ["Host": "127.0.0.1:8080"]))
/// write(client.takeOutput())
/// for event in client.feed(read()) {
///     if case .response(stream, let response) = event { print(response.status) }
/// }
/// ```
///
/// Not thread-safe: confine each session to one queue.
///
/// Its stored state is confined to one queue and touched for every pushed token, so each stored
/// property is `@exclusivity(unchecked)`: release builds skip the run-time exclusivity checks
/// there without an unsafe build flag, which SwiftPM refuses in a dependency pinned by version.
public final class HTTP2ClientSession {
    public struct Configuration: Sendable {
        /// The `:scheme` of every request ("http" for h2c, "https" behind TLS).
        public var scheme: String
        /// `:authority` for requests without a Host header.
        public var defaultAuthority: String
        /// Larger response bodies cancel their stream (reported as `.reset(_, .cancel)`).
        public var maxResponseBodyBytes: Int
        /// SETTINGS_INITIAL_WINDOW_SIZE for response bodies.
        public var initialWindowSize: UInt32
        /// The response fields kept, by lowercase name; nil keeps every one. A caller that reads
        /// one or two fields of many answers (a push fan-out reads `retry-after`) saves making
        /// strings of the rest.
        public var keptResponseFields: [String]?

        public init(
            scheme: String = "http",
            defaultAuthority: String = "localhost",
            maxResponseBodyBytes: Int = 16 << 20,
            initialWindowSize: UInt32 = 1 << 20,
            keptResponseFields: [String]? = nil
        ) {
            self.scheme = scheme
            self.defaultAuthority = defaultAuthority
            self.maxResponseBodyBytes = maxResponseBodyBytes
            self.initialWindowSize = initialWindowSize
            self.keptResponseFields = keptResponseFields?.map { $0.lowercased() }
        }
    }

    public enum Event: Sendable {
        /// The complete response (final headers and body) to the request on `streamID`.
        case response(streamID: Int32, HTTPResponse)
        /// The stream ended without a complete response. `.refusedStream` means the server
        /// never processed it: safe to retry, on a new connection after a GOAWAY.
        case reset(streamID: Int32, HTTP2ErrorCode)
        /// The server is going away; streams above `lastStreamID` were not processed and are
        /// reported as `.reset(_, .refusedStream)`.
        case goaway(lastStreamID: Int32, HTTP2ErrorCode)
        /// The server broke the protocol; the session is over.
        case connectionError(String)
    }

    public let configuration: Configuration
    let session: OpaquePointer
    @exclusivity(unchecked) var streams = DenseTable<ClientStream>()
    /// Reused by ``submit(_:pathSuffix:body:)``: the path of one request, copied in with two
    /// memcpys (an Array's emptying and appends were ~230 instructions a request). Grown as
    /// needed, freed with the session.
    @exclusivity(unchecked) private var pathScratch = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    @exclusivity(unchecked) var events: [Event] = []
    /// Closed streams emptied for reuse by ``submit(_:pathSuffix:body:)``: a fan-out opens and
    /// closes one per token, and an object's allocation and release cost more than emptying it.
    @exclusivity(unchecked) private var spareStreams: [ClientStream] = []
    @exclusivity(unchecked) var failed = false
    /// ``Configuration/keptResponseFields`` as bytes, read for every field of every answer
    /// (each String was copied out and walked for each field, ~180 instructions a push).
    let keptFieldNames: [[UInt8]]?
    /// Bit n set when a kept name is n bytes long (n < 64; longer ones are always compared).
    let keptNameLengths: UInt64
    /// Set once a GOAWAY arrives: no new requests on this connection.
    @exclusivity(unchecked) public internal(set) var receivedGoaway = false

    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.keptFieldNames = configuration.keptResponseFields?.map { Array($0.utf8) }
        self.keptNameLengths = (keptFieldNames ?? []).reduce(0) { $0 | ($1.count < 64 ? 1 << UInt64($1.count) : 0) }
        self.session = try Self.makeSession()
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                value: configuration.initialWindowSize
            ),
        ]
        let rv = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
        if rv != 0 { throw HTTP2Error.library(Int(rv), "submitting SETTINGS") }
    }

    deinit {
        nghttp2_session_del(session)
        pathScratch.deallocate()
    }

    /// Queues `request` (method, target, headers, body; Host becomes `:authority`) and
    /// returns its stream id. Throws after a GOAWAY or when nghttp2 refuses the headers.
    @discardableResult
    public func submit(_ request: HTTPRequest) throws -> Int32 {
        if receivedGoaway { throw HTTP2Error("the server sent GOAWAY; open a new connection") }
        if failed { throw HTTP2Error("the HTTP/2 session has ended") }
        var block = HeaderBlock(capacity: request.headers.count + 4)
        block.addPseudo(":method", request.method)
        block.addPseudo(":scheme", configuration.scheme)
        block.addPseudo(":authority", request.headers["Host"] ?? configuration.defaultAuthority)
        block.addPseudo(":path", request.target.isEmpty ? "/" : request.target)
        for field in request.headers
        where !HeaderBlock.isConnectionSpecific(field.name) && !HTTPHeadersNames.equal("host", field.name) {
            block.add(field.name, field.value)
        }
        let stream = ClientStream()
        let id: Int32
        if request.body.isEmpty {
            id = block.withNameValues { nghttp2_submit_request(session, nil, $0, $1, nil, nil) }
        } else {
            stream.requestBody = request.body
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: clientReadBody)
            id = block.withNameValues { nghttp2_submit_request(session, nil, $0, $1, &provider, nil) }
        }
        if id < 0 { throw HTTP2Error.library(Int(id), "submitting a request") }
        streams[Int(id)] = stream
        return id
    }

    /// Queues one request made from `template`: its path is the template's path followed by
    /// `pathSuffix` (bytes as given: encode them first), with `body`. Returns the stream id, as
    /// ``submit(_:)`` does; the fields were laid out and checked when the template was made.
    @discardableResult
    public func submit(_ template: HTTP2RequestTemplate, pathSuffix: String = "", body: [UInt8]) throws -> Int32 {
        if receivedGoaway { throw HTTP2Error("the server sent GOAWAY; open a new connection") }
        if failed { throw HTTP2Error("the HTTP/2 session has ended") }
        var suffix = pathSuffix
        let path = suffix.withUTF8 { suffixBytes in
            template.path.withUnsafeBufferPointer { prefix in makePath(prefix, suffixBytes) }
        }
        let id = template.withNameValues(path: path) { nva, count -> Int32 in
            if body.isEmpty { return nghttp2_submit_request(session, nil, nva, count, nil, nil) }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil),
                read_callback: clientReadBody
            )
            return nghttp2_submit_request(session, nil, nva, count, &provider, nil)
        }
        if id < 0 { throw HTTP2Error.library(Int(id), "submitting a request") }
        let stream = spareStreams.popLast() ?? ClientStream()
        stream.requestBody = body
        stream.template = template  // nghttp2 points into it until the HEADERS are framed
        streams[Int(id)] = stream
        return id
    }

    /// `prefix` then `suffix` in ``pathScratch`` ("/" when both are empty); valid until the
    /// next call.
    private func makePath(
        _ prefix: UnsafeBufferPointer<UInt8>,
        _ suffix: UnsafeBufferPointer<UInt8>
    ) -> UnsafeBufferPointer<UInt8> {
        let count = max(1, prefix.count + suffix.count)
        if pathScratch.count < count {
            pathScratch.deallocate()
            pathScratch = .allocate(capacity: max(count, 256))
        }
        guard let base = pathScratch.baseAddress else { return UnsafeBufferPointer(start: nil, count: 0) }
        if let p = prefix.baseAddress { base.update(from: p, count: prefix.count) }
        if let s = suffix.baseAddress { (base + prefix.count).update(from: s, count: suffix.count) }
        if prefix.count + suffix.count == 0 { base.pointee = UInt8(ascii: "/") }
        return UnsafeBufferPointer(start: base, count: count)
    }

    /// Hands received bytes to nghttp2 and returns what they completed.
    public func feed(_ bytes: UnsafeRawBufferPointer) -> [Event] {
        receive(bytes)
        return takeEvents()
    }

    /// ``feed(_:)`` that hands each event to `handle` in order instead of returning an array
    /// (a read that completes hundreds of answers copies none of them out).
    public func feed(_ bytes: UnsafeRawBufferPointer, handle: (Event) -> Void) {
        receive(bytes)
        var i = 0
        // Events `handle` causes (none today) are taken in the same pass.
        while i < events.count {
            handle(events[i])
            i += 1
        }
        events.removeAll(keepingCapacity: true)
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !failed else { return }
        if let code = NGHTTP2Session.receive(bytes, into: session) {
            failed = true
            events.append(.connectionError(HTTP2Error.library(code, "reading HTTP/2 input").message))
        }
    }

    /// Keeps a stream that left the table for reuse, emptied, when nothing else holds it.
    func recycle(_ stream: inout ClientStream) {
        guard spareStreams.count < 256, isKnownUniquelyReferenced(&stream) else { return }
        stream.reset()
        spareStreams.append(stream)
    }

    /// Whether a response field named by these bytes is kept (``Configuration/keptResponseFields``).
    func keepsField(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let kept = keptFieldNames else { return true }
        // Most names have no kept name's length: one bit test instead of a walk of the names.
        if name.count < 64, keptNameLengths & (1 << UInt64(name.count)) == 0 { return false }
        for field in kept where field.count == name.count {
            let same = field.withUnsafeBufferPointer { f in
                for i in 0..<f.count {
                    let b = name[i]
                    if f[i] != (b >= 65 && b <= 90 ? b + 32 : b) { return false }
                }
                return true
            }
            if same { return true }
        }
        return false
    }

    public func feed(_ bytes: [UInt8]) -> [Event] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Events raised while producing output (a request refused before it was sent).
    public func takeEvents() -> [Event] {
        guard !events.isEmpty else { return [] }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// Appends every frame nghttp2 has ready to `buffer`.
    public func drainOutput(into buffer: inout [UInt8]) {
        guard !failed else { return }
        if let code = NGHTTP2Session.drainOutput(of: session, into: &buffer) {
            failed = true
            events.append(.connectionError(HTTP2Error.library(code, "writing HTTP/2 output").message))
        }
    }

    public func takeOutput() -> [UInt8] {
        var out: [UInt8] = []
        drainOutput(into: &out)
        return out
    }

    /// Cancels one request.
    public func cancel(_ streamID: Int32) {
        _ = nghttp2_submit_rst_stream(
            session,
            UInt8(NGHTTP2_FLAG_NONE.rawValue),
            streamID,
            HTTP2ErrorCode.cancel.rawValue
        )
    }

    /// Sends GOAWAY. Graceful: open streams still complete.
    public func terminate(graceful: Bool) {
        guard !failed else { return }
        if graceful {
            _ = nghttp2_submit_goaway(
                session,
                UInt8(NGHTTP2_FLAG_NONE.rawValue),
                nghttp2_session_get_last_proc_stream_id(session),
                0,
                nil,
                0
            )
        } else {
            _ = nghttp2_session_terminate_session(session, 0)
        }
    }

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS (100 until its SETTINGS arrive).
    public var peerMaxConcurrentStreams: Int {
        Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Requests submitted and not yet answered or reset.
    public var activeStreamCount: Int { streams.count }

    /// Whether a new request would start at once rather than wait for a free stream slot.
    public var canStartStreamNow: Bool {
        !receivedGoaway && !failed && activeStreamCount < peerMaxConcurrentStreams
    }

    /// True when nothing is left to read or write: close the connection.
    public var isFinished: Bool {
        failed || (nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0)
    }

    private static func makeSession() throws -> OpaquePointer {
        try NGHTTP2Session.make(role: "client", installCallbacks: installClientCallbacks) {
            session,
            callbacks,
            option in
            nghttp2_session_client_new2(session, callbacks, nil, option)
        }
    }
}

/// One request in flight and its response as it arrives.
final class ClientStream {
    /// The template a request was made from: nghttp2 reads its fields in place (not copied)
    /// when it frames the HEADERS, so the stream keeps it alive until it is removed.
    @exclusivity(unchecked) var template: HTTP2RequestTemplate?
    @exclusivity(unchecked) var requestBody: [UInt8] = []
    @exclusivity(unchecked) var requestOffset = 0
    @exclusivity(unchecked) var status = 0
    @exclusivity(unchecked) var finalHeadersSeen = false
    @exclusivity(unchecked) var headers = HTTPHeaders()
    @exclusivity(unchecked) var body: [UInt8] = []
    @exclusivity(unchecked) var bodyTooLarge = false
    @exclusivity(unchecked) var completed = false

    /// Back to a new stream's state.
    func reset() {
        template = nil
        requestBody = []
        requestOffset = 0
        status = 0
        finalHeadersSeen = false
        headers = HTTPHeaders()
        body = []
        bodyTooLarge = false
        completed = false
    }
}
