import Glibc
import Sockets

/// A port that refuses connections on 127.0.0.1 and ::1 for as long as it lives: sockets bound
/// there but not listening (the kernel answers a connect with a reset). Unlike "a port that was
/// free a moment ago", no parallel test can start listening on it meanwhile.
///
/// ```swift
/// let refusing = try RefusingPort()
/// // connect to 127.0.0.1:\(refusing.port): "Connection refused"
/// withExtendedLifetime(refusing) {}
/// ```
public final class RefusingPort {
    public let port: Int
    private var fds: [Int32] = []

    public init() throws {
        for _ in 0..<20 {
            let v4 = try Self.bind(host: "127.0.0.1", port: 0)
            let port = try Posix.localPort(v4)
            if let v6 = try? Self.bind(host: "::1", port: port) {
                self.port = port
                self.fds = [v4, v6]
                return
            }
            Posix.close(v4)
        }
        throw SocketError(call: "bind", errno: EADDRINUSE, subject: "a port free on both 127.0.0.1 and ::1")
    }

    deinit { for fd in fds { Posix.close(fd) } }

    /// Also keeps `host`'s side of `port` refusing (the ::1 server test reserves only IPv4).
    public init(refusingIPv4At port: Int) throws {
        self.port = port
        self.fds = [try Self.bind(host: "127.0.0.1", port: port)]
    }

    private static func bind(host: String, port: Int) throws -> Int32 {
        let address = try SocketAddress.resolve(host: host, port: port)
        let fd = try Posix.socket(domain: address.family, type: Int32(SOCK_STREAM.rawValue))
        do {
            try Posix.bind(fd, address)
        } catch {
            Posix.close(fd)
            throw error
        }
        return fd
    }
}
