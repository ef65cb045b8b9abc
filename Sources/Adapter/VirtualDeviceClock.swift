import Clock
import Foundation
import LerixSDK
import Synchronization

/// One emulated device's clock: true time plus the device's own error, with timers kept on the
/// shared ``VirtualTimeline``. This is the only clock a hosted SDK instance ever reads. Its
/// uptime is true time, so `set_clock` (the user setting the clock) moves only the wall clock.
public final class VirtualDeviceClock: LerixSDK.DeviceClock {
    public let timeline: VirtualTimeline
    private let offset: Mutex<Int64>

    /// A clock `offsetMilliseconds` ahead of true time (negative: behind).
    public init(timeline: VirtualTimeline, offsetMilliseconds: Int64) {
        self.timeline = timeline
        self.offset = Mutex(offsetMilliseconds)
    }

    /// How far the device clock is ahead of true time now.
    public var offsetMilliseconds: Int64 { offset.withLock { $0 } }

    /// The user sets the device clock: from now on it reads true time plus `offsetMilliseconds`.
    public func setOffset(milliseconds: Int64) { offset.withLock { $0 = milliseconds } }

    /// The wall clock as an instant.
    public var instant: Instant { timeline.now.adding(milliseconds: offsetMilliseconds) }

    public var now: Date { instant.date }

    public var uptime: Duration { .milliseconds(timeline.now.millisecondsSinceEpoch) }

    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any DeviceTimer {
        let token = timeline.schedule(at: timeline.now.adding(milliseconds: max(0, delay.milliseconds)), work)
        return TimelineTimer(timeline: timeline, token: token)
    }
}

private struct TimelineTimer: DeviceTimer {
    let timeline: VirtualTimeline
    let token: VirtualTimeline.TimerToken
    func cancel() { timeline.cancel(token) }
}
