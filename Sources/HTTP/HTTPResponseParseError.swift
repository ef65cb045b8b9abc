/// Why the bytes from a server are not (or no longer) a usable response. After one, the
/// connection's framing cannot be trusted: close it.
///
/// ```swift
/// case .failure(let error) where error.kind == .closedBeforeResponse:   // safe to retry elsewhere
/// ```
public struct HTTPResponseParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The bytes break HTTP/1.1 (status line, fields, framing, chunk syntax).
        case malformed
        /// Over an ``HTTPResponseLimits`` limit.
        case tooLarge
        /// The connection ended in the middle of a response.
        case truncated
        /// The connection ended with a response expected and none of it received: the server
        /// never saw (or dropped) the request, so an idempotent one may be sent again.
        case closedBeforeResponse
        /// Bytes arrived while no request was waiting for an answer.
        case unexpected
    }

    public var kind: Kind
    /// A sentence a person at a terminal can act on.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
