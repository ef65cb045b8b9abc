#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Posix {
    /// What ``poll(_:for:timeoutMilliseconds:)`` waits for.
    public enum Readiness: Sendable {
        case readable
        case writable
    }

    /// Waits (blocking the calling thread) until `fd` is ready, for at most
    /// `timeoutMilliseconds` (negative: no limit). True when ready (including an error or
    /// hang-up, which the next read or write reports), false on timeout. `EINTR` is retried
    /// with the time left.
    ///
    /// For a caller that must wait on its own thread (a blocking test client); never on a
    /// reactor's queue or a Dispatch worker.
    public static func poll(_ fd: Int32, for readiness: Readiness, timeoutMilliseconds: Int) throws -> Bool {
        let wanted = Int16(readiness == .readable ? POLLIN : POLLOUT)
        let deadline = timeoutMilliseconds < 0 ? 0 : monotonicMilliseconds() + Int64(timeoutMilliseconds)
        while true {
            var entry = pollfd(fd: fd, events: wanted, revents: 0)
            let left = timeoutMilliseconds < 0 ? -1 : Int32(clamping: max(0, deadline - monotonicMilliseconds()))
            let rc = Glibc.poll(&entry, 1, left)
            if rc > 0 { return true }
            if rc == 0 { return false }
            let e = errno
            if e == EINTR { continue }
            throw SocketError(call: "poll", errno: e)
        }
    }

    /// `poll(2)` over several descriptors at once (a negative `fd` is skipped, as poll does),
    /// for at most `timeoutMilliseconds`; each entry's `revents` says what happened. The number
    /// of ready entries, 0 on timeout. `EINTR` is retried with the time left. Like
    /// ``poll(_:for:timeoutMilliseconds:)``, only for a caller on its own thread.
    @discardableResult
    public static func poll(_ entries: inout [pollfd], timeoutMilliseconds: Int) throws -> Int {
        let deadline = monotonicMilliseconds() + Int64(max(0, timeoutMilliseconds))
        while true {
            for i in entries.indices { entries[i].revents = 0 }
            let left = Int32(clamping: max(0, deadline - monotonicMilliseconds()))
            let rc = Glibc.poll(&entries, nfds_t(entries.count), left)
            if rc >= 0 { return Int(rc) }
            let e = errno
            if e == EINTR { continue }
            throw SocketError(call: "poll", errno: e)
        }
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

    /// Real elapsed milliseconds (`CLOCK_MONOTONIC`), for I/O timeouts only.
    public static func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
