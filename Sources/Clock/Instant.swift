/// A point in true or virtual time, to the millisecond, counted from the Unix epoch.
///
/// Every time in lerix-mock is an `Instant` handed out by an injected ``InstantSource``;
/// nothing reads the wall clock directly, which is what makes virtual time work.
///
/// ```swift
/// let start = Instant(rfc3339: "2026-12-02T11:00:00.000Z")!
/// let later = start.adding(seconds: 90)
/// print(later.rfc3339)   // 2026-12-02T11:01:30.000Z
/// ```
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var millisecondsSinceEpoch: Int64

    public init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    public init(secondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = secondsSinceEpoch &* 1000
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    public func adding(seconds: Int64) -> Instant {
        Instant(millisecondsSinceEpoch: millisecondsSinceEpoch &+ seconds &* 1000)
    }

    public func adding(milliseconds: Int64) -> Instant {
        Instant(millisecondsSinceEpoch: millisecondsSinceEpoch &+ milliseconds)
    }

    /// Whole seconds since the epoch, floored (so -1 ms is second -1).
    public var secondsSinceEpoch: Int64 { millisecondsSinceEpoch.floorDivided(by: 1000).0 }

    /// Milliseconds from `other` to `self` (negative when `self` is earlier).
    public func milliseconds(since other: Instant) -> Int64 {
        millisecondsSinceEpoch &- other.millisecondsSinceEpoch
    }

    public var description: String { rfc3339 }
}
