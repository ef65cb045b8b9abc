import Clock
import Foundation
import LerixSDK
import Synchronization

/// One emulated device's clock: true time plus the device's own error, with timers kept on the
/// host's ``ManualScheduler`` (in process, the server's manual clock too). This is the only
/// clock a hosted SDK instance ever reads. Its uptime is true time, so `set_clock` (the user
/// setting the clock) moves only the wall clock.
///
/// ```swift
/// let trueTime = ManualScheduler(now: start)
/// let phone = VirtualDeviceClock(scheduler: trueTime, offsetMilliseconds: 3_600_000)  // an hour fast
/// phone.schedule(after: .seconds(60)) { print("device timer") }
/// trueTime.nextDeadline   // start + 60 s, in true time
/// ```
public final class VirtualDeviceClock: MillisecondDeviceClock {
    /// True time, shared by every device of a host.
    public let scheduler: ManualScheduler
    private let offset: Atomic<Int64>

    /// A clock `offsetMilliseconds` ahead of true time (negative: behind).
    public init(scheduler: ManualScheduler, offsetMilliseconds: Int64) {
        self.scheduler = scheduler
        self.offset = Atomic(offsetMilliseconds)
    }

    /// How far the device clock is ahead of true time now.
    public var offsetMilliseconds: Int64 { offset.load(ordering: .relaxed) }

    /// The user sets the device clock: from now on it reads true time plus `offsetMilliseconds`.
    public func setOffset(milliseconds: Int64) { offset.store(milliseconds, ordering: .relaxed) }

    /// The wall clock as an instant.
    public var instant: Instant { scheduler.now.adding(milliseconds: offsetMilliseconds) }

    public var now: Date { instant.date }

    public var uptime: Duration { .milliseconds(uptimeMilliseconds) }

    package var uptimeMilliseconds: Int64 { scheduler.now.millisecondsSinceEpoch }

    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any DeviceTimer {
        schedule(afterMilliseconds: delay.milliseconds, work)
    }

    package func schedule(
        afterMilliseconds delay: Int64,
        _ work: @escaping @Sendable () -> Void
    ) -> any DeviceTimer & AnyObject {
        scheduler.scheduledHandle(at: scheduler.now.adding(milliseconds: max(0, delay)), work)
    }
}
