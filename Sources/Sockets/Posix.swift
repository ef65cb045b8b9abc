// The socket calls extend the POSIX target's ``Posix``; code that imports Sockets sees both.
@_exported import POSIX

#if canImport(Glibc)
import CSockets
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The name socket code gives a failed system call.
public typealias SocketError = SystemCallError

/// Each socket system call wrapped once, as the POSIX target wraps the calls on any descriptor:
/// `errno` read at once, `EINTR` retried, `EAGAIN` turned into ``IOResult/wouldBlock``.
extension Posix {
    /// A new socket, close-on-exec: a child this process starts (an SDK adapter, a shell)
    /// must not hold a listener's port or a connection open after this process closes them.
    public static func socket(domain: Int32, type: Int32) throws -> Int32 {
        let fd = retrying { Glibc.socket(domain, type | Int32(SOCK_CLOEXEC.rawValue), 0) }
        guard fd >= 0 else { throw SocketError(call: "socket", errno: errno) }
        return fd
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
}
