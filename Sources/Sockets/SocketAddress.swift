#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address and port, resolved from a numeric address or a host name.
///
/// ```swift
/// let any = try SocketAddress.resolve(host: "0.0.0.0", port: 8080)
/// let loopback6 = try SocketAddress.resolve(host: "::1", port: 0)
/// ```
public struct SocketAddress: Sendable, CustomStringConvertible {
    public let host: String
    public let port: Int
    /// `AF_INET` or `AF_INET6`.
    public let family: Int32
    private let storage: [UInt8]

    /// Resolves `host` for a listening socket. Numeric addresses need no lookup;
    /// a name (`localhost`) takes its first IPv4 address, else its first IPv6 one.
    public static func resolve(host: String, port: Int) throws -> SocketAddress {
        guard (0 ... 65535).contains(port) else {
            throw SocketError(call: "resolve", errno: EINVAL, subject: "port \(port) (must be 0...65535)")
        }
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
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0, let first = list else {
            let reason = rc == 0 ? "no address" : String(cString: gai_strerror(rc))
            throw SocketError(call: "resolve", errno: EINVAL, subject: "\"\(host)\" (\(reason))")
        }
        defer { freeaddrinfo(list) }
        var chosen: UnsafeMutablePointer<addrinfo>?
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if entry.pointee.ai_family == AF_INET { chosen = entry; break }
            if entry.pointee.ai_family == AF_INET6 && chosen == nil { chosen = entry }
            cursor = entry.pointee.ai_next
        }
        guard let entry = chosen, let address = entry.pointee.ai_addr else {
            throw SocketError(call: "resolve", errno: EINVAL, subject: "\"\(host)\" (no IPv4 or IPv6 address)")
        }
        if entry.pointee.ai_family == AF_INET {
            var a = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
            a.sin_port = UInt16(port).bigEndian
            return SocketAddress(host: host, port: port, family: AF_INET, raw: a)
        }
        var a = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
        a.sin6_port = UInt16(port).bigEndian
        return SocketAddress(host: host, port: port, family: AF_INET6, raw: a)
    }

    private init<Raw>(host: String, port: Int, family: Int32, raw: Raw) {
        self.host = host
        self.port = port
        self.family = family
        var copy = raw
        self.storage = withUnsafeBytes(of: &copy) { Array($0) }
    }

    public var description: String {
        family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        storage.withUnsafeBytes { raw in
            let pointer = raw.baseAddress!.assumingMemoryBound(to: sockaddr.self)
            return body(pointer, socklen_t(raw.count))
        }
    }
}
