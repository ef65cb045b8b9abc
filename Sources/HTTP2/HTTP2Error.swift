import CNghttp2

/// A failure inside an HTTP/2 session, with nghttp2's own wording so a log line says what broke.
public struct HTTP2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The nghttp2 library error code (negative), or 0 when the failure is ours.
    public var code: Int32
    public var message: String

    public init(code: Int32 = 0, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Wraps a negative nghttp2 return value, naming the operation that failed.
    static func library(_ code: Int, _ operation: String) -> HTTP2Error {
        let text = nghttp2_strerror(Int32(truncatingIfNeeded: code)).map { String(cString: $0) } ?? "unknown error"
        return HTTP2Error(code: Int32(truncatingIfNeeded: code), "\(operation) failed: \(text)")
    }

    public var description: String { message }
}

/// An HTTP/2 error code as carried by RST_STREAM and GOAWAY (RFC 9113 §7).
public struct HTTP2ErrorCode: RawRepresentable, Sendable, Equatable, Hashable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let noError = HTTP2ErrorCode(rawValue: 0x0)
    public static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    public static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    public static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    public static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    public static let cancel = HTTP2ErrorCode(rawValue: 0x8)

    /// The RFC name, e.g. "PROTOCOL_ERROR".
    public var description: String {
        nghttp2_http2_strerror(rawValue).map { String(cString: $0) } ?? "0x\(String(rawValue, radix: 16))"
    }
}
