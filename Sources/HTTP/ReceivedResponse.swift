/// A response as an ``HTTPResponseParser`` read it off the wire: the status line's parts, the
/// fields in arrival order, the body without its transfer framing, and whether the connection
/// stays open after it.
///
/// ```swift
/// case .response(let received):
///     received.status                 // 200
///     received.headers["ETag"]        // "\"a1\""
///     if !received.keepAlive { close() }
/// ```
public struct ReceivedResponse: Sendable {
    public var version: HTTPVersion
    public var status: Int
    /// The reason phrase as sent (may be empty).
    public var reason: String
    public var headers: HTTPHeaders
    /// De-chunked; empty for HEAD, 1xx, 204 and 304 whatever the fields say.
    public var body: [UInt8]
    /// False when the connection must close after this response: HTTP/1.0 without
    /// `keep-alive`, `Connection: close`, a body delimited by the close, or a protocol switch.
    public var keepAlive: Bool

    public init(
        version: HTTPVersion = .http1_1,
        status: Int,
        reason: String = "",
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        keepAlive: Bool = true
    ) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.keepAlive = keepAlive
    }

    /// `HTTP/1.1 200 OK`, as it arrived (minus the line end).
    public var statusLine: String {
        reason.isEmpty ? "\(version.text) \(status)" : "\(version.text) \(status) \(reason)"
    }

    /// Status, fields and body as the protocol-neutral ``HTTPResponse``.
    public var response: HTTPResponse { HTTPResponse(status: status, headers: headers, body: body) }
}
