import Clock

/// A maintenance window: it ends after it starts, and at most 7 days after
/// (``RuleBody/decode(_:id:)`` enforces both).
///
/// ```swift
/// let window = MaintenanceWindow(startsAt: t, endsAt: t.adding(seconds: 1800))
/// window.isActiveOrImminent(at: t.adding(seconds: -3600))   // true: starts within the hour
/// ```
public struct MaintenanceWindow: Sendable, Equatable {
    /// nil: every platform.
    public var platforms: [Platform]?
    public var startsAt: Instant
    public var endsAt: Instant
    public var message: String?

    /// Longest window the contract allows, in seconds.
    public static let maximumDurationSeconds: Int64 = 7 * 86_400

    public init(platforms: [Platform]? = nil, startsAt: Instant, endsAt: Instant, message: String? = nil) {
        self.platforms = platforms
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.message = message
    }

    /// True when at `now` the window is active or starts at most an hour later, and has
    /// not ended: what makes its changes blocking and answers' lifetimes short.
    public func isActiveOrImminent(at now: Instant) -> Bool {
        endsAt > now && startsAt <= now.adding(seconds: 3600)
    }
}
