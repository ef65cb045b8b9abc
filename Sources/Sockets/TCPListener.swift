#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens non-blocking listening TCP sockets.
///
/// ```swift
/// let listener = try TCPListener.open(host: "127.0.0.1", port: 0)
/// print("listening on", listener.port)   // the port the kernel picked
/// ```
public enum TCPListener {
    /// A bound, listening, non-blocking socket and the port it is bound to.
    public struct Opened: Sendable {
        public let fd: Int32
        public let port: Int
        public let address: SocketAddress
    }

    /// Binds `host:port` with `SO_REUSEADDR` and listens. Port 0 lets the kernel pick.
    public static func open(host: String, port: Int, backlog: Int32 = 4096) throws -> Opened {
        let address = try SocketAddress.resolve(host: host, port: port)
        let fd = try Posix.socket(domain: address.family, type: Int32(SOCK_STREAM.rawValue))
        do {
            try Posix.setReuseAddress(fd)
            try Posix.bind(fd, address)
            try Posix.listen(fd, backlog: backlog)
            try Posix.setNonBlocking(fd)
            return Opened(fd: fd, port: try Posix.localPort(fd), address: address)
        } catch {
            Posix.close(fd)
            throw error
        }
    }
}
