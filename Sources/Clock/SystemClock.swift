import POSIX

/// The wall clock (`CLOCK_REALTIME`), for code that only reads the time.
///
/// ```swift
/// let clock: any InstantSource = SystemClock()
/// print(clock.now.rfc3339)
/// ```
public struct SystemClock: InstantSource {
    public init() {}

    public var now: Instant {
        Instant(millisecondsSinceEpoch: Posix.wallClockMilliseconds())
    }
}
