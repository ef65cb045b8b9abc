#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SocketAddress {
    /// Every IPv4 and IPv6 address of `host` for a TCP connect, in the resolver's order
    /// (`getaddrinfo` with `AF_UNSPEC`, duplicates dropped), each named by its numeric text. A numeric address (`127.0.0.1`,
    /// `::1`, `[::1]`) needs no lookup and answers itself. Throws a ``SocketError`` naming the
    /// host and the resolver's reason.
    ///
    /// A name lookup may block (it reads `/etc/hosts`, may ask DNS): never call it on a
    /// reactor's queue.
    ///
    /// ```swift
    /// let candidates = try SocketAddress.lookup(host: "localhost", port: 8080)   // [127.0.0.1:8080, [::1]:8080]
    /// ```
    public static func lookup(host: String, port: Int) throws -> [SocketAddress] {
        try checkPort(port)
        if let numeric = numeric(host: host, port: port) { return [numeric] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0, let first = list else {
            let reason = rc == 0 ? "no address" : String(cString: gai_strerror(rc))
            throw SocketError(call: "resolve", errno: EINVAL, subject: "\"\(host)\" (\(reason))")
        }
        defer { freeaddrinfo(list) }
        var found: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            guard let raw = entry.pointee.ai_addr else { continue }
            let address: SocketAddress
            switch entry.pointee.ai_family {
            case AF_INET:
                var a = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
                a.sin_port = UInt16(port).bigEndian
                address = SocketAddress(host: numericText(AF_INET, &a.sin_addr), port: port, family: AF_INET, raw: a)
            case AF_INET6:
                var a = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
                a.sin6_port = UInt16(port).bigEndian
                address = SocketAddress(host: numericText(AF_INET6, &a.sin6_addr), port: port, family: AF_INET6, raw: a)
            default:
                continue
            }
            if !found.contains(where: { $0.sameEndpoint(as: address) }) { found.append(address) }
        }
        guard !found.isEmpty else {
            throw SocketError(call: "resolve", errno: EINVAL, subject: "\"\(host)\" (no IPv4 or IPv6 address)")
        }
        return found
    }

    /// `inet_ntop`: "127.0.0.1", "::1".
    private static func numericText(_ family: Int32, _ address: UnsafeRawPointer) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(family, address, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func checkPort(_ port: Int) throws {
        guard (0...65535).contains(port) else {
            throw SocketError(call: "resolve", errno: EINVAL, subject: "port \(port) (must be 0...65535)")
        }
    }

    /// The address itself when `host` is a numeric IPv4 or IPv6 address (brackets allowed).
    static func numeric(host: String, port: Int) -> SocketAddress? {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = UInt16(port).bigEndian
            return SocketAddress(host: host, port: port, family: AF_INET, raw: v4)
        }
        var v6 = sockaddr_in6()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if inet_pton(AF_INET6, bare, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = UInt16(port).bigEndian
            return SocketAddress(host: bare, port: port, family: AF_INET6, raw: v6)
        }
        return nil
    }
}
