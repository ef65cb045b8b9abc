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
/// Work scheduled while advancing, at or before the target, runs in the same advance.
/// Work never runs while the internal lock is held, so it may schedule or cancel freely.
public final class ManualScheduler: Scheduler, Sendable {
    private struct Entry {
        let deadline: Instant
        let sequence: UInt64
        let work: @Sendable () -> Void
    }

    private struct State {
        var now: Instant
        var nextSequence: UInt64 = 0
        var pending: [UInt64: Entry] = [:]
    }

    private let state: Mutex<State>
    /// Serialises advances so two callers cannot interleave each other's due work.
    private let advancing = Mutex<Void>(())

    public init(now: Instant) {
        state = Mutex(State(now: now))
    }

    public var now: Instant { state.withLock { $0.now } }

    /// The earliest pending deadline, or nil when nothing is scheduled.
    public var nextDeadline: Instant? {
        state.withLock { $0.pending.values.map(\.deadline).min() }
    }

    @discardableResult
    public func schedule(at deadline: Instant, _ work: @escaping @Sendable () -> Void) -> Cancellable {
        let sequence = state.withLock { s -> UInt64 in
            let seq = s.nextSequence
            s.nextSequence += 1
            s.pending[seq] = Entry(deadline: deadline, sequence: seq, work: work)
            return seq
        }
        return ManualCancellable(scheduler: self, sequence: sequence)
    }

    fileprivate func cancel(_ sequence: UInt64) {
        _ = state.withLock { $0.pending.removeValue(forKey: sequence) }
    }

    /// Moves time to `target` (never backwards past work already run), running every entry
    /// due at or before it. Time reads as each entry's deadline while that entry runs.
    public func advance(to target: Instant) {
        advancing.withLock { _ in
            while true {
                let due: Entry? = state.withLock { s in
                    let candidate = s.pending.values
                        .filter { $0.deadline <= target }
                        .min { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
                    guard let entry = candidate else { return nil }
                    s.pending.removeValue(forKey: entry.sequence)
                    if entry.deadline > s.now { s.now = entry.deadline }
                    return entry
                }
                guard let entry = due else { break }
                entry.work()
            }
            state.withLock { $0.now = target }
        }
    }

    public func advance(bySeconds seconds: Int64) {
        advance(to: now.adding(seconds: seconds))
    }
}

private struct ManualCancellable: Cancellable {
    let scheduler: ManualScheduler
    let sequence: UInt64
    func cancel() { scheduler.cancel(sequence) }
}
