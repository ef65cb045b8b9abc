import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real time: `CLOCK_REALTIME` for now, Dispatch timers for scheduled work.
///
/// ```swift
/// let clock = SystemScheduler()
/// clock.schedule(at: clock.now.adding(seconds: 60)) { print("a minute later") }
/// ```
public final class SystemScheduler: Scheduler, @unchecked Sendable {
    // Immutable after init; DispatchQueue is thread-safe.
    private let queue: DispatchQueue

    public init(queue: DispatchQueue = DispatchQueue(label: "lerix.system-scheduler")) {
        self.queue = queue
    }

    public var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(millisecondsSinceEpoch: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }

    @discardableResult
    public func schedule(at deadline: Instant, _ work: @escaping @Sendable () -> Void) -> Cancellable {
        let item = DispatchWorkItem(block: work)
        let delay = max(0, deadline.milliseconds(since: now))
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(delay)), execute: item)
        return DispatchCancellable(item: item)
    }
}

struct DispatchCancellable: Cancellable, @unchecked Sendable {
    // DispatchWorkItem.cancel is thread-safe.
    let item: DispatchWorkItem
    func cancel() { item.cancel() }
}
