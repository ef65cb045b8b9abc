import Reactor
import TLS

/// How a client socket secures its bytes: plain TCP, or TLS with a context (trust, ALPN) and
/// the name the server's certificate must carry.
///
/// ```swift
/// let security = TransportSecurity.tls(try TLSContext.client(alpn: ["h2"]), peerName: "localhost")
/// ```
public enum TransportSecurity: Sendable {
    case plaintext
    case tls(TLSContext, peerName: String)

    /// A fresh transport for one connection on `reactor` (TLS uses its plaintext buffer).
    public func makeTransport(on reactor: Reactor) throws(HTTPClientError) -> any ConnectionTransport {
        switch self {
        case .plaintext:
            return PlaintextTransport()
        case .tls(let context, let peerName):
            do {
                return TLSTransport(
                    session: try context.makeSession(peerName: peerName),
                    buffer: reactor.plaintextBuffer
                )
            } catch {
                throw .tlsFailed(peer: peerName, reason: "could not start: \(error)")
            }
        }
    }

    public var isTLS: Bool {
        if case .tls = self { return true }
        return false
    }
}
