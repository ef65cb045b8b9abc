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
}
#endif
