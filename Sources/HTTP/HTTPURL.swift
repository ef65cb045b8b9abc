/// An `http://` or `https://` URL split the way a client needs it on the wire: where to
/// connect (host, port, TLS or not) and what to ask for (the request target). Parsed as bytes,
/// because the adapter parses one for every request it sends.
///
/// ```swift
/// let url = try HTTPURL(parsing: "http://[::1]:8080/v1/projects/demo/release-control?platform=ios")
/// url.host        // "::1"
/// url.port        // 8080
/// url.target      // "/v1/projects/demo/release-control?platform=ios"
/// url.authority   // "[::1]:8080"
/// ```
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Hashable {
        case http
        case https

        /// 80 or 443: the port a URL without one means, and left out of ``HTTPURL/authority``.
        public var defaultPort: Int { self == .https ? 443 : 80 }
    }

    public var scheme: Scheme
    /// A name as written, or an IP literal (an IPv6 one without its brackets).
    public var host: String
    public var port: Int
    /// Still percent-encoded; "/" when the URL has none.
    public var path: String
    /// What follows `?`, still percent-encoded; nil when there is no `?`.
    public var query: String?

    public init(scheme: Scheme, host: String, port: Int? = nil, path: String = "/", query: String? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port ?? scheme.defaultPort
        self.path = path.isEmpty ? "/" : path
        self.query = query
    }

    /// https: the connection runs TLS.
    public var isSecure: Bool { scheme == .https }

    /// The origin-form request target: path and query.
    public var target: String {
        guard let query else { return path }
        return path + "?" + query
    }

    /// The `Host` field (HTTP/1.1) or `:authority` (HTTP/2): brackets around an IPv6 literal,
    /// the port left out when it is the scheme's default.
    public var authority: String {
        let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return port == scheme.defaultPort ? name : "\(name):\(port)"
    }

    /// The path without a trailing "/" ("" for the root): a prefix to put before other paths.
    public var pathPrefix: String {
        var prefix = Substring(path)
        while prefix.last == "/" { prefix = prefix.dropLast() }
        return String(prefix)
    }

    /// The URL as text; a bare root path is left out (`http://127.0.0.1:8080`), as people write it.
    public var description: String {
        let rest = target
        return "\(scheme.rawValue)://\(authority)\(rest == "/" ? "" : rest)"
    }

    /// The same origin with another request target (path and optional query), e.g. an admin
    /// path on a server's root URL.
    public func with(target newTarget: String) -> HTTPURL {
        var copy = self
        let parts = newTarget.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        copy.path = parts.first.map(String.init).flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        copy.query = parts.count > 1 ? String(parts[1]) : nil
        return copy
    }
}

/// A URL an ``HTTPURL`` cannot be made from, with the reason in words a user can act on.
public struct HTTPURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text as given.
    public var url: String
    public var message: String

    public init(url: String, message: String) {
        self.url = url
        self.message = message
    }

    public var description: String { "invalid URL '\(url)': \(message)" }
}
