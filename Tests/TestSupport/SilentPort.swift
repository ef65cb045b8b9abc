import Sockets

/// A loopback port whose kernel completes every TCP handshake (up to the backlog) and where
/// nothing is ever accepted, read or written, for as long as it lives: a peer that never speaks
/// (a connect or handshake timeout).
///
/// ```swift
/// let silent = try SilentPort()
/// // connect to 127.0.0.1:\(silent.port): connected, then silence
/// withExtendedLifetime(silent) {}
/// ```
public final class SilentPort {
    public let port: Int
    private let fd: Int32

    public init() throws {
        let listener = try TCPListener.open(host: "127.0.0.1", port: 0, backlog: 64)
        fd = listener.fd
        port = listener.port
    }

    deinit { Posix.close(fd) }
}
