/// An `http://` or `https://host[:port]/path?query` URL split the way the wire needs it (parsed
/// as bytes: this runs for every request the adapter sends).
struct RequestTarget: Equatable {
    var host: String
    var port: Int
    /// https: the connection runs TLS (port 443 unless given).
    var isSecure: Bool
    /// The request target: path and query, never empty.
    var path: String

    /// Nil for anything but an `http://` or `https://` URL.
    init?(url: String) {
        var bytes = Array(url.utf8)
        let plain: [UInt8] = Array("http://".utf8), secure: [UInt8] = Array("https://".utf8)
        if bytes.count > secure.count, Array(bytes[0..<secure.count]) == secure {
            isSecure = true
            bytes.removeFirst(secure.count)
        } else if bytes.count > plain.count, Array(bytes[0..<plain.count]) == plain {
            isSecure = false
            bytes.removeFirst(plain.count)
        } else {
            return nil
        }
        var authorityEnd = bytes.count
        for (i, b) in bytes.enumerated() where b == 47 || b == 63 || b == 35 {  // / ? #
            authorityEnd = i
            break
        }
        let authority = bytes[0..<authorityEnd]
        var target = Array(bytes[authorityEnd...])
        if let hash = target.firstIndex(of: 35) { target.removeSubrange(hash...) }
        if target.first != 47 { target.insert(47, at: 0) }
        guard !authority.isEmpty, !authority.contains(64) else { return nil }  // no userinfo
        var hostBytes: ArraySlice<UInt8>
        var portBytes: ArraySlice<UInt8>?
        if authority.first == 91 {  // [IPv6]
            guard let close = authority.firstIndex(of: 93) else { return nil }
            hostBytes = authority[(authority.startIndex + 1)..<close]
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == 58 else { return nil }
                portBytes = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: 58) {
            hostBytes = authority[..<colon]
            portBytes = authority[(colon + 1)...]
        } else {
            hostBytes = authority
        }
        var port = isSecure ? 443 : 80
        if let portBytes {
            guard !portBytes.isEmpty, portBytes.count <= 5, portBytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            port = portBytes.reduce(0) { $0 * 10 + Int($1 - 48) }
            guard (1...65535).contains(port) else { return nil }
        }
        guard !hostBytes.isEmpty else { return nil }
        host = String(decoding: hostBytes, as: UTF8.self)
        self.port = port
        path = String(decoding: target, as: UTF8.self)
    }

    /// The `Host` header value.
    var hostHeader: String {
        let name = host.utf8.contains(58) ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }
}
