/// An `http://host[:port]/path?query` URL split the way the wire needs it.
struct RequestTarget: Equatable {
    var host: String
    var port: Int
    /// The request target: path and query, never empty.
    var path: String

    /// Nil for anything but a plain `http://` URL (the adapter's client does not speak TLS).
    init?(url: String) {
        guard url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst(7)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.isEmpty {
                port = 80
            } else {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
        } else {
            host = String(authority)
            port = 80
        }
        guard !host.isEmpty else { return nil }
        path = target
    }

    /// The `Host` header value.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }
}
