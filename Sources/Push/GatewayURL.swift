/// Where a provider gateway listens: `https://host[:port][/prefix]` (HTTP/2 over TLS, ALPN h2,
/// as APNs and FCM speak it) or `http://host[:port][/prefix]` (h2c with prior knowledge).
///
/// ```swift
/// let url = try GatewayURL(parsing: "https://127.0.0.1:9443")
/// url.host        // "127.0.0.1"
/// url.port        // 9443
/// url.isSecure    // true
/// ```
public struct GatewayURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// A path prefix put before every request path, without a trailing slash ("" for none).
    public var pathPrefix: String
    /// https: TLS with ALPN h2; http: h2c.
    public var isSecure: Bool

    public init(host: String, port: Int, pathPrefix: String = "", isSecure: Bool = false) {
        self.host = host
        self.port = port
        self.pathPrefix = pathPrefix
        self.isSecure = isSecure
    }

    /// Parses a gateway URL; the error message names the URL and what to change.
    public init(parsing text: String) throws(GatewayURLError) {
        let lower = text.lowercased()
        let secure = lower.hasPrefix("https://")
        guard secure || lower.hasPrefix("http://") else {
            throw GatewayURLError(url: text, message: "expected an https:// URL (TLS) such as https://api.sandbox.push.apple.com, or http:// for h2c such as http://127.0.0.1:9443")
        }
        let rest = text.dropFirst(secure ? "https://".count : "http://".count)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[rest.startIndex..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.contains("?") || path.contains("#") {
            throw GatewayURLError(url: text, message: "a gateway URL takes no query or fragment")
        }
        while path.hasSuffix("/") { path.removeLast() }
        if authority.contains("@") {
            throw GatewayURLError(url: text, message: "credentials in the URL are not supported")
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw GatewayURLError(url: text, message: "unterminated IPv6 address")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw GatewayURLError(url: text, message: "unexpected text after the IPv6 address")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw GatewayURLError(url: text, message: "the URL has no host") }
        var port = secure ? 443 : 80
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw GatewayURLError(url: text, message: "the port must be a number from 1 to 65535")
            }
            port = value
        }
        self.init(host: String(host), port: port, pathPrefix: path, isSecure: secure)
    }

    /// The `:authority` sent with each request.
    public var authority: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? h : "\(h):\(port)"
    }

    public var scheme: String { isSecure ? "https" : "http" }

    public var description: String { "\(scheme)://\(authority)\(pathPrefix)" }
}

/// A gateway URL that cannot be used, with the reason.
public struct GatewayURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var url: String
    public var message: String
    public var description: String { "invalid gateway URL '\(url)': \(message)" }
}
