#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall clock (`CLOCK_REALTIME`), for code that only reads the time.
///
/// ```swift
/// let clock: any Clock = SystemClock()
/// print(clock.now.rfc3339)
/// ```
public struct SystemClock: Clock {
    public init() {}

    public var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(millisecondsSinceEpoch: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }
}
