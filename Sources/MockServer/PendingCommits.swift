import Synchronization

/// The store commits a request's answer (or a push) waits for: writes apply to memory at once and
/// are committed by the store later, shared with other writes in flight, so what goes out
/// because of them goes out only once they are durable.
///
/// ```swift
/// let commits = PendingCommits()
/// try write(for: commits) { … }                       // applied to memory, committing
/// commits.whenSettled { problem in reply(problem?.response ?? ok) }
/// ```
final class PendingCommits: Sendable {
    private struct State {
        var outstanding = 0
        var problem: Problem?
        var waiting: [@Sendable (Problem?) -> Void] = []
    }

    private let state = Mutex(State())
    /// True for a request answered by a server loop that calls ``MockServer/batchEnded()`` after
    /// it: its writes' commit starts there (shared with the batch's other writes), not at once.
    let commitAtBatchEnd: Bool

    init(commitAtBatchEnd: Bool = false) {
        self.commitAtBatchEnd = commitAtBatchEnd
    }

    /// One more commit to wait for; call before the store may report it.
    func expect() {
        state.withLock { $0.outstanding += 1 }
    }

    /// The store reported one expected commit: nil when durable, else the refusal to answer with.
    func settle(_ problem: Problem?) {
        let ready: (actions: [@Sendable (Problem?) -> Void], problem: Problem?)? = state.withLock { s in
            s.outstanding -= 1
            if s.problem == nil { s.problem = problem }
            guard s.outstanding == 0 else { return nil }
            defer { s.waiting = [] }
            return (s.waiting, s.problem)
        }
        guard let ready else { return }
        for action in ready.actions { action(ready.problem) }
    }

    /// Runs `action` once every expected commit is settled (at once when none is outstanding),
    /// with the first refusal, if any. Never with a lock of this object held.
    func whenSettled(_ action: @escaping @Sendable (Problem?) -> Void) {
        let now: Problem?? = state.withLock { s in
            guard s.outstanding == 0 else {
                // A write waits with two: its answer and its announcement; one allocation for both.
                if s.waiting.isEmpty { s.waiting.reserveCapacity(2) }
                s.waiting.append(action)
                return nil
            }
            return .some(s.problem)
        }
        if let problem = now { action(problem) }
    }
}
