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
        try checkPort(port)
        if let numeric = numeric(host: host, port: port) { return numeric }
        let all = try lookup(host: host, port: port)
        let chosen = all.first(where: { $0.family == AF_INET }) ?? all[0]
        // Named as asked: "bind localhost:8080 failed" says what the user typed.
        return SocketAddress(host: host, port: port, family: chosen.family, storage: chosen.storage)
    }

    private init(host: String, port: Int, family: Int32, storage: [UInt8]) {
        self.host = host
        self.port = port
        self.family = family
        self.storage = storage
    }

    init<Raw>(host: String, port: Int, family: Int32, raw: Raw) {
        self.host = host
        self.port = port
        self.family = family
        var copy = raw
        self.storage = withUnsafeBytes(of: &copy) { Array($0) }
    }

    /// True for IPv6 (`AF_INET6`).
    public var isIPv6: Bool { family == AF_INET6 }

    /// The same family, address bytes and port (the host text may differ).
    public func sameEndpoint(as other: SocketAddress) -> Bool {
        family == other.family && storage == other.storage
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
