import HTTP
import Sockets

/// One request on its way through the client: what to send, where, and who hears the outcome.
/// (`@unchecked Sendable`: handed to the reactor's queue once, and touched only there after.)
final class Exchange: @unchecked Sendable {
    let request: HTTPRequest
    let origin: Origin
    /// Where `origin` was found (looked up on the caller's thread).
    let addresses: [SocketAddress]
    let completion: @Sendable (Result<ReceivedResponse, HTTPClientError>) -> Void
    /// Sent again after a connection died under it (at most once).
    var retried = false
    /// Written to a socket at least once.
    var written = false

    init(
        request: HTTPRequest,
        origin: Origin,
        addresses: [SocketAddress],
        completion: @escaping @Sendable (Result<ReceivedResponse, HTTPClientError>) -> Void
    ) {
        self.request = request
        self.origin = origin
        self.addresses = addresses
        self.completion = completion
    }

    var isHEAD: Bool { request.method == "HEAD" }

    /// Sending it twice has the effect of sending it once (RFC 9110 §9.2.2).
    var isIdempotent: Bool {
        switch request.method {
        case "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE": return true
        default: return false
        }
    }

    func finish(_ result: Result<ReceivedResponse, HTTPClientError>) {
        completion(result)
    }
}

/// Where connections go: scheme, host and port (one pool of connections each).
struct Origin: Hashable, Sendable, CustomStringConvertible {
    var isSecure: Bool
    var host: String
    var port: Int
    /// The `Host` field: `[::1]:8080`, the port left out when it is the scheme's default.
    var authority: String

    init(_ url: HTTPURL) {
        isSecure = url.isSecure
        host = url.host
        port = url.port
        authority = url.authority
    }

    /// `a` and `b` have one origin (what ``init(_:)`` would make of each is equal).
    static func same(_ a: HTTPURL, _ b: HTTPURL) -> Bool {
        a.port == b.port && a.isSecure == b.isSecure && a.host == b.host
    }

    // `authority` follows from the rest: leaving it out halves the hashing on every request placed.
    static func == (a: Origin, b: Origin) -> Bool {
        a.port == b.port && a.isSecure == b.isSecure && a.host == b.host
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(isSecure)
    }

    /// How errors name it: "127.0.0.1:8080", "[::1]:8080".
    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
