import Clock

/// One device's clock: true time plus the device's own error, with timers kept on the shared
/// ``VirtualTimeline``. This is the only clock a hosted SDK instance ever reads.
public struct DeviceClock: Scheduler {
    public let timeline: VirtualTimeline
    /// How far the device clock is ahead of true time (negative: behind).
    public let offsetMilliseconds: Int64

    public init(timeline: VirtualTimeline, offsetMilliseconds: Int64) {
        self.timeline = timeline
        self.offsetMilliseconds = offsetMilliseconds
    }

    public var now: Instant { timeline.now.adding(milliseconds: offsetMilliseconds) }

    @discardableResult
    public func schedule(at deadline: Instant, _ work: @escaping @Sendable () -> Void) -> Cancellable {
        let token = timeline.schedule(at: deadline.adding(milliseconds: -offsetMilliseconds), work)
        return TimelineCancellable(timeline: timeline, token: token)
    }
}

private struct TimelineCancellable: Cancellable {
    let timeline: VirtualTimeline
    let token: VirtualTimeline.TimerToken
    func cancel() { timeline.cancel(token) }
}
