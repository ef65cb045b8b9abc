#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Each system call wrapped once: `errno` is read at once, `EINTR` retried, `EAGAIN` turned into
/// ``IOResult/wouldBlock``, end of stream reported as ``IOResult/endOfFile`` (never as an error
/// with a stale `errno`). This target holds the calls on any descriptor (files, pipes, poll,
/// processes); the `Sockets` target extends it with the socket calls. No other target imports
/// Glibc (LerixSDK, a product of its own, keeps its file calls).
///
/// ```swift
/// switch try Posix.read(fd, into: buffer) {
/// case .processed(let n): consume(buffer.prefix(n))
/// case .wouldBlock: break            // wait for the read source
/// case .endOfFile: close()
/// }
/// ```
public enum Posix {
    public static func setNonBlocking(_ fd: Int32) throws {
        let flags = retrying { fcntl(fd, F_GETFL) }
        guard flags >= 0 else { throw SystemCallError.last("fcntl(F_GETFL)") }
        if flags & O_NONBLOCK != 0 { return }
        guard retrying({ fcntl(fd, F_SETFL, flags | O_NONBLOCK) }) >= 0 else {
            throw SystemCallError.last("fcntl(F_SETFL, O_NONBLOCK)")
        }
    }

    /// `read(2)` on any descriptor: a socket, a pipe, a file.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> IOResult {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .processed(n) }
            if n == 0 { return buffer.isEmpty ? .processed(0) : .endOfFile }
            let e = errno
            switch e {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SystemCallError(call: "read", errno: e)
            }
        }
    }

    /// Closes `fd`. `EINTR` is not retried: on Linux the descriptor is gone either way.
    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// The number of online processors (at least 1).
    public static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Calls `call` again while it fails with `EINTR`.
    package static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }
}
