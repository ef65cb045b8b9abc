import Dispatch

/// Real time: ``SystemClock`` for now, Dispatch timers for scheduled work.
///
/// ```swift
/// let clock = SystemScheduler()
/// clock.schedule(at: clock.now.adding(seconds: 60)) { print("a minute later") }
/// ```
public final class SystemScheduler: Scheduler, Sendable {
    // Only a queue, which is Sendable: nothing to confine.
    private let queue: DispatchQueue

    public init(queue: DispatchQueue = DispatchQueue(label: "lerix.system-scheduler")) {
        self.queue = queue
    }

    public var now: Instant { SystemClock().now }

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
