/// Why a client request or connection failed, with a message a user can act on. Each case
/// names the peer ("127.0.0.1:8080") so a log line stands on its own.
public enum HTTPClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The URL could not be used (bad scheme, host or port).
    case invalidURL(String)
    /// The host name did not resolve.
    case lookupFailed(host: String, reason: String)
    /// TCP connect failed at every address (refused, unreachable).
    case connectFailed(peer: String, reason: String)
    /// Neither TCP nor the TLS handshake finished within the connect timeout.
    case connectTimedOut(peer: String, milliseconds: Int)
    /// The TLS handshake or a record failed (certificate, protocol version, ALPN).
    case tlsFailed(peer: String, reason: String)
    /// Reading or writing the socket failed (reset).
    case ioFailed(peer: String, reason: String)
    /// The peer closed the connection before the answer was complete.
    case closedEarly(peer: String, detail: String)
    /// No byte of an expected answer arrived within the read timeout.
    case readTimedOut(peer: String, milliseconds: Int)
    /// The peer's answer broke the protocol.
    case malformedResponse(peer: String, reason: String)
    /// The client was shut down, or the request was cancelled, before an answer.
    case cancelled(String)

    public var description: String {
        switch self {
        case .invalidURL(let why): return "invalid URL: \(why)"
        case .lookupFailed(let host, let reason): return "cannot resolve \(host): \(reason)"
        case .connectFailed(let peer, let reason): return "cannot connect to \(peer): \(reason)"
        case .connectTimedOut(let peer, let ms): return "connect to \(peer) timed out after \(ms) ms"
        case .tlsFailed(let peer, let reason): return "TLS with \(peer) failed: \(reason)"
        case .ioFailed(let peer, let reason): return "connection to \(peer) failed: \(reason)"
        case .closedEarly(let peer, let detail): return "\(peer) closed the connection \(detail)"
        case .readTimedOut(let peer, let ms): return "no answer from \(peer) within \(ms) ms"
        case .malformedResponse(let peer, let reason): return "malformed response from \(peer): \(reason)"
        case .cancelled(let why): return "request cancelled: \(why)"
        }
    }
}
