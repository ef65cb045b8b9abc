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
    /// For a caller that must wait on its own thread (a blocking test client, the runner's
    /// adapter pipes); never on a reactor's queue or a Dispatch worker.
    public static func poll(_ fd: Int32, for readiness: Readiness, timeoutMilliseconds: Int) throws -> Bool {
        try poll([(fd, readiness)], timeoutMilliseconds: timeoutMilliseconds).contains(true)
    }

    /// ``poll(_:for:timeoutMilliseconds:)`` on several descriptors at once, each for its own
    /// readiness: which are ready, in the order given (all false on timeout). A negative
    /// descriptor is skipped, never ready (as `poll(2)` does).
    public static func poll(_ watches: [(fd: Int32, readiness: Readiness)], timeoutMilliseconds: Int) throws -> [Bool] {
        let deadline = timeoutMilliseconds < 0 ? 0 : monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var entries = watches.map {
            pollfd(fd: $0.fd, events: Int16($0.readiness == .readable ? POLLIN : POLLOUT), revents: 0)
        }
        while true {
            for i in entries.indices { entries[i].revents = 0 }
            let left = timeoutMilliseconds < 0 ? -1 : Int32(clamping: max(0, deadline - monotonicMilliseconds()))
            let rc = Glibc.poll(&entries, nfds_t(entries.count), left)
            if rc >= 0 { return entries.map { $0.fd >= 0 && $0.revents != 0 } }
            let e = errno
            if e == EINTR { continue }
            throw SystemCallError(call: "poll", errno: e)
        }
    }

    /// Real elapsed milliseconds (`CLOCK_MONOTONIC`), for I/O timeouts only.
    public static func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Milliseconds since the Unix epoch (`CLOCK_REALTIME`): the wall clock.
    public static func wallClockMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Blocks the calling thread for `milliseconds` (never a reactor's queue or a Dispatch worker).
    public static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }
}
