import Clock

/// One project's silent-push throttle (contract "Push"): at most one push per 60 s.
///
/// The first blocking change is pushed at once. Blocking changes within 60 s of the last
/// push are combined into one push sent 60 s after it: the throttle answers `wakeAt`
/// and the owner calls ``timerFired(now:)`` then. Nothing else ever sends. A timer that
/// fires late (a clock jump over several windows) sends once, at the time it fired, and
/// the next 60 s count from there. If a manual clock is set back, a combined push
/// still waits at most 60 s from the change that asked for it.
///
/// ```swift
/// var throttle = PushThrottle()
/// throttle.blockingChange(id: 1, now: t0)                   // [.sendNow(changeIds: [1])]
/// throttle.blockingChange(id: 2, now: t0.adding(seconds: 10))  // [.wakeAt(t0 + 60 s)]
/// throttle.blockingChange(id: 3, now: t0.adding(seconds: 20))  // [] (already waking)
/// throttle.timerFired(now: t0.adding(seconds: 60))          // [.sendNow(changeIds: [2, 3])]
/// ```
public struct PushThrottle: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Send one push carrying these change ids, now.
        case sendNow(changeIds: [Int])
        /// Call ``PushThrottle/timerFired(now:)`` at this instant.
        case wakeAt(Instant)
    }

    /// Minimum spacing of pushes, in seconds.
    public static let intervalSeconds: Int64 = 60

    /// When the last push went out; nil before the first.
    public private(set) var lastPushAt: Instant?
    /// Change ids waiting for the combined push.
    public private(set) var pendingChangeIds: [Int] = []
    /// When the combined push is due; nil when nothing waits.
    public private(set) var wakeAt: Instant?

    public init() {}

    /// A blocking change was made at `now`.
    public mutating func blockingChange(id: Int, now: Instant) -> [Action] {
        // Never wait longer than one interval from now, even when a manual clock was set
        // back before the last push.
        let latest = now.adding(seconds: Self.intervalSeconds)
        if let due = wakeAt {
            pendingChangeIds.append(id)
            // The owner's timer is late (or racing this change): send everything now.
            if now >= due { return [send(now: now)] }
            if due > latest {
                wakeAt = latest
                return [.wakeAt(latest)]
            }
            return []
        }
        if let last = lastPushAt, now < last.adding(seconds: Self.intervalSeconds) {
            let due = min(last.adding(seconds: Self.intervalSeconds), latest)
            pendingChangeIds = [id]
            wakeAt = due
            return [.wakeAt(due)]
        }
        pendingChangeIds = [id]
        return [send(now: now)]
    }

    /// The owner's timer fired at `now`. Sends the combined push when due; an early call
    /// asks to be woken again; a call with nothing pending does nothing.
    public mutating func timerFired(now: Instant) -> [Action] {
        guard let due = wakeAt, !pendingChangeIds.isEmpty else { return [] }
        if now < due { return [.wakeAt(due)] }
        return [send(now: now)]
    }

    private mutating func send(now: Instant) -> Action {
        let ids = pendingChangeIds
        pendingChangeIds = []
        wakeAt = nil
        lastPushAt = now
        return .sendNow(changeIds: ids)
    }
}
