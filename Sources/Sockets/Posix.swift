#if canImport(Glibc)
import CSockets
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Each socket system call wrapped once: `errno` is read at once, `EINTR` retried,
/// `EAGAIN` turned into ``IOResult/wouldBlock``, end of stream reported as
/// ``IOResult/endOfFile`` (never as an error with a stale `errno`).
///
/// ```swift
/// switch try Posix.read(fd, into: buffer) {
/// case .processed(let n): consume(buffer.prefix(n))
/// case .wouldBlock: break            // wait for the read source
/// case .endOfFile: close()
/// }
/// ```
public enum Posix {
    public static func socket(domain: Int32, type: Int32) throws -> Int32 {
        let fd = retrying { Glibc.socket(domain, type, 0) }
        guard fd >= 0 else { throw SocketError(call: "socket", errno: errno) }
        return fd
    }

    public static func setNonBlocking(_ fd: Int32) throws {
        let flags = retrying { fcntl(fd, F_GETFL) }
        guard flags >= 0 else { throw SocketError(call: "fcntl(F_GETFL)", errno: errno) }
        if flags & O_NONBLOCK != 0 { return }
        guard retrying({ fcntl(fd, F_SETFL, flags | O_NONBLOCK) }) >= 0 else {
            throw SocketError(call: "fcntl(F_SETFL, O_NONBLOCK)", errno: errno)
        }
    }

    public static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32, label: String) throws {
        var v = value
        let rc = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
        guard rc == 0 else { throw SocketError(call: "setsockopt(\(label))", errno: errno) }
    }

    public static func setReuseAddress(_ fd: Int32) throws {
        try setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1, label: "SO_REUSEADDR")
    }

    /// Small answers go out at once instead of waiting for Nagle's timer.
    public static func setNoDelay(_ fd: Int32) throws {
        try setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1, label: "TCP_NODELAY")
    }

    public static func bind(_ fd: Int32, _ address: SocketAddress) throws {
        let rc = address.withSockAddr { Glibc.bind(fd, $0, $1) }
        guard rc == 0 else { throw SocketError(call: "bind", errno: errno, subject: address.description) }
    }

    public static func listen(_ fd: Int32, backlog: Int32) throws {
        guard Glibc.listen(fd, backlog) == 0 else { throw SocketError(call: "listen", errno: errno) }
    }

    /// The accepted descriptor, already non-blocking and close-on-exec (`accept4`), or nil
    /// when no connection is waiting. Errors a client caused (it reset before we accepted)
    /// also answer nil: the listener stays healthy.
    public static func accept(_ fd: Int32) throws -> Int32? {
        let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        while true {
            let client = accept4(fd, nil, nil, flags)
            if client >= 0 { return client }
            let e = errno
            switch e {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO, EPERM: return nil
            default: throw SocketError(call: "accept", errno: e)
            }
        }
    }

    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> IOResult {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .processed(n) }
            if n == 0 { return buffer.isEmpty ? .processed(0) : .endOfFile }
            let e = errno
            switch e {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SocketError(call: "read", errno: e)
            }
        }
    }

    /// `send` with `MSG_NOSIGNAL`: a peer that went away is an error, not a `SIGPIPE`.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws -> IOResult {
        while true {
            let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .processed(n) }
            let e = errno
            switch e {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SocketError(call: "send", errno: e)
            }
        }
    }

    /// Gathered write (`sendmsg` with `MSG_NOSIGNAL`, the `writev` that cannot raise `SIGPIPE`).
    public static func writev(_ fd: Int32, _ buffers: UnsafeMutableBufferPointer<iovec>) throws -> IOResult {
        var message = msghdr()
        message.msg_iov = buffers.baseAddress
        message.msg_iovlen = buffers.count
        while true {
            let n = sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .processed(n) }
            let e = errno
            switch e {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SocketError(call: "sendmsg", errno: e)
            }
        }
    }

    /// Sends FIN after any queued data: the peer reads to the end, then sees end of stream.
    public static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes `fd`. `EINTR` is not retried: on Linux the descriptor is gone either way.
    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// The local port a socket is bound to (the one the kernel picked for port 0).
    public static func localPort(_ fd: Int32) throws -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { throw SocketError(call: "getsockname", errno: errno) }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            throw SocketError(call: "getsockname", errno: EAFNOSUPPORT)
        }
    }

    /// The number of online processors (at least 1).
    public static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    private static func retrying(_ call: () -> Int32) -> Int32 {
        while true {
            let rc = call()
            if rc < 0 && errno == EINTR { continue }
            return rc
        }
    }
}
