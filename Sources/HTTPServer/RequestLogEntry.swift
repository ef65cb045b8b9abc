import HTTP

/// One answered (or dropped) request, handed to the server's log sink.
///
/// ```swift
/// HTTPServer(configuration: .init(), responder: app) { entry in
///     FileHandle.standardError.write(entry.line + "\n")   // "GET /healthz 200 2B 87us"
/// }
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
        let statusText = status.map { String($0) } ?? "reset"
        return "\(method) \(target) \(statusText) \(bytes)B \(microseconds)us"
    }
}
