#if canImport(Glibc)
import Glibc

extension Posix {
    /// Writes all of `bytes` to a file, pipe or terminal with `write(2)` (sockets use
    /// ``write(_:_:)``). Returns false when the descriptor failed or would block.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// One `write(2)` to a pipe or file (sockets use ``write(_:_:)``): `EINTR` retried, `EAGAIN`
    /// on a non-blocking descriptor is ``IOResult/wouldBlock``; a reader that went away (`EPIPE`,
    /// with `SIGPIPE` ignored) and other failures throw.
    public static func writeSome(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws -> IOResult {
        while true {
            let n = Glibc.write(fd, bytes.baseAddress, bytes.count)
            if n >= 0 { return .processed(n) }
            let e = errno
            switch e {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SocketError(call: "write", errno: e)
            }
        }
    }
}
#endif
