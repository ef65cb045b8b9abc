/// Why a request could not be parsed, with the status the server should answer before
/// closing the connection (RFC 9112: the framing after a bad request cannot be trusted).
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 400, 413, 414, 417, 431, 501 or 505.
    public var status: Int
    /// A sentence a person at a terminal can act on.
    public var message: String

    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status) \(HTTPResponse.reasonPhrase(status)): \(message)" }

    static func bad(_ message: String) -> HTTPParseError { HTTPParseError(status: 400, message: message) }
}
