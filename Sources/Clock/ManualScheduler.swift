import Synchronization

/// Virtual time: it moves only when told to, and runs due work synchronously, in deadline
/// order (ties in scheduling order), inside ``advance(to:)``.
///
/// ```swift
/// let clock = ManualScheduler(now: Instant(rfc3339: "2026-12-02T11:00:00.000Z")!)
/// clock.schedule(at: clock.now.adding(seconds: 60)) { print("fired") }
/// clock.advance(bySeconds: 60)   // prints "fired" before returning
/// ```
///
/// One scheduler can carry many clocks' timers: in process, the server's push timers and
/// every hosted device's timers sit in one heap, so one `advance` fires them all in one order.
/// Work scheduled while advancing, at or before the target, runs in the same advance.
/// Work never runs while the internal lock is held, so it may schedule or cancel freely;
/// it must not call `advance` itself.
public final class ManualScheduler: Scheduler, Sendable {
    private struct State {
        var now: Instant
        var nextSequence: UInt64 = 0
        var heap = TimerHeap()
    }

    private let state: Mutex<State>
    /// Serialises advances so two callers cannot interleave each other's due work.
    private let advancing = Mutex<Void>(())
    /// `state.now`, readable without the lock: every hosted device reads the time at every
    /// event (a fleet's check reads it about five times). Written only under the lock.
    private let nowMilliseconds: Atomic<Int64>

    public init(now: Instant) {
        state = Mutex(State(now: now))
        nowMilliseconds = Atomic(now.millisecondsSinceEpoch)
    }

    public var now: Instant { Instant(millisecondsSinceEpoch: nowMilliseconds.load(ordering: .acquiring)) }

    /// The earliest deadline of work not cancelled, or nil when nothing is scheduled.
    public var nextDeadline: Instant? {
        state.withLock { $0.heap.earliestLiveDeadline }
    }

    /// Entries held, cancelled ones not yet swept included (tests pin that cancelled work
    /// does not pile up).
    package var heldCount: Int { state.withLock { $0.heap.count } }

    /// Heap entries held: buckets of work tied on a deadline (tests pin that ties share one).
    package var heldBucketCount: Int { state.withLock { $0.heap.bucketCount } }

    @discardableResult
    public func schedule(at deadline: Instant, _ work: @escaping @Sendable () -> Void) -> Cancellable {
        scheduledHandle(at: deadline, work)
    }

    /// ``schedule(at:_:)`` giving the handle as its class: held as `any Cancellable & AnyObject`
    /// it takes two words, so a wrapper of it fits an existential's inline buffer (a device's
    /// timer, set after every check, then costs no box).
    @discardableResult
    package func scheduledHandle(at deadline: Instant, _ work: @escaping @Sendable () -> Void) -> ScheduledHandle {
        let handle = ScheduledHandle()
        state.withLock { s in
            s.heap.insert(deadline: deadline, sequence: s.nextSequence, DueWork(handle: handle, work: work))
            s.nextSequence &+= 1
        }
        return handle
    }

    /// Moves time to `target` (never backwards), running every entry due at or before it.
    /// Time reads as each entry's deadline while that entry runs.
    public func advance(to target: Instant) {
        advance(to: target) { _, due in
            for work in due { work.run() }
        }
    }

    /// Like ``advance(to:)``, but hands `eachInstant` all the work due at one instant at once,
    /// in scheduling order, for the caller to run (with ``DueWork/run()``) as it likes: the
    /// adapter starts every device timer of an instant before it waits for their requests.
    /// Time reads as that instant meanwhile; work the batch schedules for that instant or
    /// earlier comes as a further batch at the same instant.
    public func advance(to target: Instant, eachInstant: (_ instant: Instant, _ due: [DueWork]) -> Void) {
        advancing.withLock { _ in
            while let (instant, due) = takeEarliest(notAfter: target) {
                eachInstant(instant, due)
            }
            state.withLock { s in
                if target > s.now { setNow(target, in: &s) }
            }
        }
    }

    public func advance(bySeconds seconds: Int64) {
        advance(to: now.adding(seconds: seconds))
    }

    /// Puts time at `instant`, backwards too, when no live work is scheduled: a server whose
    /// state was just replaced starts over at a fixed time (`POST /admin/reset` with `now`), so a
    /// scenario's time 0 never depends on the ones before it. False, and time stays, while live
    /// work is pending: going back would run it later than its deadline meant.
    public func restart(at instant: Instant) -> Bool {
        advancing.withLock { _ in
            state.withLock { s in
                guard s.heap.earliestLiveDeadline == nil else { return false }
                s.heap = TimerHeap()
                setNow(instant, in: &s)
                return true
            }
        }
    }

    private func setNow(_ instant: Instant, in s: inout State) {
        s.now = instant
        nowMilliseconds.store(instant.millisecondsSinceEpoch, ordering: .releasing)
    }

    /// Removes every live entry due at the earliest deadline, if that is at or before `target`,
    /// and moves time to it (time never goes back for work scheduled in the past). One lock
    /// for the whole instant.
    private func takeEarliest(notAfter target: Instant) -> (Instant, [DueWork])? {
        state.withLock { s in
            guard let deadline = s.heap.earliestLiveDeadline, deadline <= target,
                let (_, due) = s.heap.removeEarliestInstant()
            else { return nil }
            if deadline > s.now { setNow(deadline, in: &s) }
            return (s.now, due)
        }
    }
}

/// Work a ``ManualScheduler`` found due, handed out by ``ManualScheduler/advance(to:eachInstant:)``.
public struct DueWork: Sendable {
    let handle: ScheduledHandle
    let work: @Sendable () -> Void

    /// Runs the work unless it was cancelled after it came due; false when it did not run.
    @discardableResult
    public func run() -> Bool {
        guard handle.start() else { return false }
        work()
        return true
    }
}

/// The ``Cancellable`` of one scheduled entry: pending until it starts or is cancelled,
/// whichever comes first. Lock-free, so `cancel` never waits for the scheduler.
package final class ScheduledHandle: Cancellable, Sendable {
    private static let pending: UInt8 = 0, cancelled: UInt8 = 1, started: UInt8 = 2
    private let phase = Atomic<UInt8>(ScheduledHandle.pending)

    package func cancel() {
        _ = phase.compareExchange(expected: Self.pending, desired: Self.cancelled, ordering: .relaxed)
    }

    var isCancelled: Bool { phase.load(ordering: .relaxed) == Self.cancelled }

    /// Claims the work for running; false when it was cancelled (or already started).
    func start() -> Bool {
        phase.compareExchange(expected: Self.pending, desired: Self.started, ordering: .relaxed).exchanged
    }
}
