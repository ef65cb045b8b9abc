#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Posix {
    /// Opens a non-blocking TCP socket (with `TCP_NODELAY`) and starts connecting it to `address`.
    /// `connected` is true when the connect finished at once; otherwise wait until the socket is
    /// writable, then ask ``pendingError(_:)`` how it went. Throws when the connect failed at once
    /// (`ECONNREFUSED` on loopback), with the address in the message.
    /// `receiveBuffer` fixes `SO_RCVBUF` before connecting (no autotuning; a test that counts
    /// what a server holds).
    public static func startConnect(
        to address: SocketAddress,
        receiveBuffer: Int32? = nil
    ) throws -> (fd: Int32, connected: Bool) {
        let fd = try socket(domain: address.family, type: Int32(SOCK_STREAM.rawValue))
        do {
            try setNonBlocking(fd)
            try? setNoDelay(fd)
            if let receiveBuffer {
                try setOption(fd, level: SOL_SOCKET, name: SO_RCVBUF, value: receiveBuffer, label: "SO_RCVBUF")
            }
            while true {
                let rc = address.withSockAddr { Glibc.connect(fd, $0, $1) }
                if rc == 0 { return (fd, true) }
                let e = errno
                switch e {
                case EINTR: continue
                case EINPROGRESS, EALREADY: return (fd, false)
                default: throw SocketError(call: "connect", errno: e, subject: address.description)
                }
            }
        } catch {
            close(fd)
            throw error
        }
    }

    /// The socket's pending error (`SO_ERROR`), 0 when none: how a non-blocking connect reports
    /// its outcome once the socket turns writable.
    public static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
        return value
    }

    /// Connects a non-blocking TCP socket to `address`, waiting (on the calling thread) for at
    /// most `timeoutMilliseconds`. The socket stays non-blocking, with `TCP_NODELAY`. Throws a
    /// ``SocketError`` naming the address (refused, unreachable; `ETIMEDOUT` when time ran out).
    public static func connect(
        to address: SocketAddress,
        timeoutMilliseconds: Int,
        receiveBuffer: Int32? = nil
    ) throws -> Int32 {
        let opened = try startConnect(to: address, receiveBuffer: receiveBuffer)
        if opened.connected { return opened.fd }
        do {
            guard try poll(opened.fd, for: .writable, timeoutMilliseconds: timeoutMilliseconds) else {
                throw SocketError(call: "connect", errno: ETIMEDOUT, subject: address.description)
            }
            let error = pendingError(opened.fd)
            guard error == 0 else { throw SocketError(call: "connect", errno: error, subject: address.description) }
            return opened.fd
        } catch {
            close(opened.fd)
            throw error
        }
    }
}
