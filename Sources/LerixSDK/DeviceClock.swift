package import Clock
import Foundation

/// The device's clock as the SDK reads it: the wall clock, which the user may set at any
/// moment, and an uptime that never jumps. Within one process the SDK measures every interval
/// (an answer's age, the poll, the 7-day drop, the server-time correction) by the uptime, so
/// setting the clock either way never makes an answer look fresher than it is.
///
/// ``SystemDeviceClock`` is the real one; ``ManualDeviceClock`` is the test twin.
///
/// ```swift
/// let lerix = Lerix(configuration: configuration, clock: SystemDeviceClock(), storage: storage)
/// ```
public protocol DeviceClock: Sendable {
    /// The wall clock: what the device says the time is (maybe wrong, maybe just changed).
    var now: Date { get }
    /// Time since some fixed moment of this process that only moves forward, at the true rate,
    /// sleep included; setting the wall clock does not move it.
    var uptime: Duration { get }
    /// Runs `work` once `delay` of uptime has passed; the returned timer can cancel it.
    @discardableResult
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any DeviceTimer
}

/// A ``DeviceClock`` that also reads and waits in whole milliseconds, as the SDK keeps time.
/// The virtual clocks (the test twin, the adapter's devices) adopt it, so the SDK reads them
/// per event without going through `Date` and `Duration` (a `Duration`'s milliseconds take a
/// 128-bit division: a fleet paid that three times per check). Class-bound: held as an
/// optional existential and read at every event, it then copies as one retain, not through
/// its type's value witnesses.
package protocol MillisecondDeviceClock: DeviceClock, AnyObject {
    /// ``DeviceClock/now`` as an instant.
    var instant: Instant { get }
    /// ``DeviceClock/uptime`` in milliseconds.
    var uptimeMilliseconds: Int64 { get }
    /// ``DeviceClock/schedule(after:_:)`` with the delay in milliseconds; the timer is a class
    /// (the SDK keeps it in two words).
    func schedule(afterMilliseconds delay: Int64, _ work: @escaping @Sendable () -> Void) -> any DeviceTimer & AnyObject
}

/// A timer set with ``DeviceClock/schedule(after:_:)``.
public protocol DeviceTimer: Sendable {
    /// Stops the timer; calling it after the work ran, or twice, does nothing.
    func cancel()
}

/// The real device clock: `Date()` for the wall clock, `ContinuousClock` (which counts sleep)
/// for the uptime, Dispatch for timers.
///
/// ```swift
/// let clock = SystemDeviceClock()
/// clock.schedule(after: .seconds(60)) { print("a minute later") }
/// ```
public struct SystemDeviceClock: DeviceClock {
    private let origin = ContinuousClock.now
    private let queue: DispatchQueue

    /// Timers run on `queue` (a private serial queue by default).
    public init(queue: DispatchQueue = DispatchQueue(label: "lerix.device-clock")) {
        self.queue = queue
    }

    /// The system wall clock.
    public var now: Date { Date() }

    /// `ContinuousClock` time since this clock was made (counts sleep, never jumps).
    public var uptime: Duration { ContinuousClock.now - origin }

    /// Runs `work` on the clock's queue after `delay`.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any DeviceTimer {
        let item = DispatchWorkItem(block: work)
        let milliseconds = max(0, delay.milliseconds)
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(clamping: milliseconds)), execute: item)
        return DispatchDeviceTimer(item: item)
    }
}

private struct DispatchDeviceTimer: DeviceTimer, @unchecked Sendable {
    // DispatchWorkItem.cancel is thread-safe.
    let item: DispatchWorkItem
    func cancel() { item.cancel() }
}

extension Duration {
    /// Whole milliseconds, rounded toward zero.
    package var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1000 &+ attoseconds / 1_000_000_000_000_000
    }
}
