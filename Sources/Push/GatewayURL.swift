/// Where a provider gateway listens: `http://host[:port][/prefix]`, spoken as h2c with prior knowledge.
///
/// https is out of scope for the mock (no TLS stack): such URLs are refused with a message
/// saying so, rather than silently speaking cleartext to a TLS port.
///
/// ```swift
/// let url = try GatewayURL(parsing: "http://127.0.0.1:9443")
/// url.host        // "127.0.0.1"
/// url.port        // 9443
/// ```
public struct GatewayURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// A path prefix put before every request path, without a trailing slash ("" for none).
    public var pathPrefix: String

    public init(host: String, port: Int, pathPrefix: String = "") {
        self.host = host
        self.port = port
        self.pathPrefix = pathPrefix
    }

    /// Parses a gateway URL; the error message names the URL and what to change.
    public init(parsing text: String) throws(GatewayURLError) {
        let lower = text.lowercased()
        if lower.hasPrefix("https://") {
            throw GatewayURLError(url: text, message: "https is not supported: lerix-mock speaks h2c (HTTP/2 over cleartext, prior knowledge) only; use an http:// URL such as http://127.0.0.1:9443")
        }
        guard lower.hasPrefix("http://") else {
            throw GatewayURLError(url: text, message: "expected an http:// URL such as http://127.0.0.1:9443")
        }
        let rest = text.dropFirst("http://".count)
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
        var port = 80
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw GatewayURLError(url: text, message: "the port must be a number from 1 to 65535")
            }
            port = value
        }
        self.init(host: String(host), port: port, pathPrefix: path)
    }

    /// The `:authority` sent with each request.
    public var authority: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? h : "\(h):\(port)"
    }

    public var description: String { "http://\(authority)\(pathPrefix)" }
}

/// A gateway URL that cannot be used, with the reason.
public struct GatewayURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var url: String
    public var message: String
    public var description: String { "invalid gateway URL '\(url)': \(message)" }
}
