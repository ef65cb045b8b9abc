import HTTP

/// One answered (or dropped) request, as the server logs it.
///
/// ```swift
/// var line: [UInt8] = []
/// RequestLogEntry(method: "GET", target: "/healthz", status: 200, bytes: 2, microseconds: 87,
///                 version: .http1_1).append(to: &line)   // "GET /healthz 200 2B 87us\n"
/// ```
public struct RequestLogEntry: Sendable {
    public var method: String
    /// The request target as sent (path and query).
    public var target: String
    /// nil when the connection was closed without an answer (``HTTPReply/close``).
    public var status: Int?
    /// Body bytes written (before any transfer framing).
    public var bytes: Int
    /// From the parsed request to its answer being queued for the socket.
    public var microseconds: Int
    public var version: HTTPVersion

    public init(method: String, target: String, status: Int?, bytes: Int, microseconds: Int, version: HTTPVersion) {
        self.method = method
        self.target = target
        self.status = status
        self.bytes = bytes
        self.microseconds = microseconds
        self.version = version
    }

    /// `METHOD target status bytesB microsecondsus`, e.g. `GET /healthz 200 2B 87us`;
    /// a dropped connection shows `reset` instead of a status.
    public var line: String {
        var bytes: [UInt8] = []
        append(to: &bytes)
        bytes.removeLast()
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``line`` and a newline, as bytes: no `String` is made per request.
    public func append(to out: inout [UInt8]) {
        out.appendUTF8(method)
        out.append(.space)
        out.appendUTF8(target)
        out.append(.space)
        if let status {
            HTTPResponseSerializer.appendDecimal(status, to: &out)
        } else {
            out.appendUTF8("reset")
        }
        out.append(.space)
        HTTPResponseSerializer.appendDecimal(bytes, to: &out)
        out.append(UInt8(ascii: "B"))
        out.append(.space)
        HTTPResponseSerializer.appendDecimal(microseconds, to: &out)
        out.append(UInt8(ascii: "u"))
        out.append(UInt8(ascii: "s"))
        out.append(UInt8(ascii: "\n"))
    }
}

extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
}
