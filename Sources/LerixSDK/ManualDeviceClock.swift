package import Clock
import Foundation
import Synchronization

/// The test twin of ``DeviceClock``: time moves only when told to. ``advance(by:)`` is time
/// passing (wall clock and uptime together, due timers run in order before it returns);
/// ``setTime(_:)`` is the user setting the device clock (the wall clock jumps, the uptime and
/// the timers do not move).
///
/// ```swift
/// let clock = ManualDeviceClock(now: Date(timeIntervalSince1970: 1_796_209_200))
/// let lerix = Lerix(configuration: configuration, clock: clock, storage: InMemoryStorage())
/// lerix.start()
/// clock.advance(by: .seconds(60))           // a poll due now runs before this returns
/// clock.setTime(clock.now - 2 * 3600)        // the user sets the clock back two hours
/// ```
public final class ManualDeviceClock: MillisecondDeviceClock {
    /// Timers on an uptime timeline (milliseconds from 0), so a wall-clock change leaves them be.
    private let timers = ManualScheduler(now: Instant(millisecondsSinceEpoch: 0))
    /// Wall clock minus uptime, in milliseconds.
    private let wallOffset: Mutex<Int64>

    /// A clock reading `now`, with uptime 0.
    public init(now: Date) {
        wallOffset = Mutex(Instant(now).millisecondsSinceEpoch)
    }

    /// The wall clock: moved by ``advance(by:)`` and ``setTime(_:)``.
    public var now: Date { instant.date }

    /// Time passed since the clock was made: moved by ``advance(by:)`` only.
    public var uptime: Duration { .milliseconds(uptimeMilliseconds) }

    package var uptimeMilliseconds: Int64 { timers.now.millisecondsSinceEpoch }

    /// The wall clock as the SDK's internal instant.
    package var instant: Instant { timers.now.adding(milliseconds: wallOffset.withLock { $0 }) }

    /// Runs `work` inside the ``advance(by:)`` that passes `delay` from now.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any DeviceTimer {
        schedule(afterMilliseconds: delay.milliseconds, work)
    }

    package func schedule(
        afterMilliseconds delay: Int64,
        _ work: @escaping @Sendable () -> Void
    ) -> any DeviceTimer & AnyObject {
        timers.scheduledHandle(at: timers.now.adding(milliseconds: max(0, delay)), work)
    }

    /// Time passes: every timer due within `duration` runs, in deadline order, with the clock
    /// reading its deadline, before this returns. Negative durations do nothing.
    public func advance(by duration: Duration) {
        timers.advance(to: timers.now.adding(milliseconds: max(0, duration.milliseconds)))
    }

    /// The user sets the device clock to `date` (earlier or later); no time passes.
    public func setTime(_ date: Date) {
        let uptime = timers.now.millisecondsSinceEpoch
        wallOffset.withLock { $0 = Instant(date).millisecondsSinceEpoch - uptime }
    }

    /// How long until the next timer is due, or nil when none is set.
    public var nextTimer: Duration? {
        timers.nextDeadline.map { .milliseconds($0.milliseconds(since: timers.now)) }
    }
}

/// A manual scheduler's entry is the virtual clocks' timer itself: a class, so the SDK holds
/// the timer it sets after every check in two words, copied by a retain.
extension ScheduledHandle: DeviceTimer {}
