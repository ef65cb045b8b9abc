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
    typealias Action = @Sendable (Problem?) -> Void

    private struct State {
        var outstanding = 0
        var problem: Problem?
        /// A write waits with two actions (its answer and its announcement): held inline, so
        /// waiting costs no array; a third and more go to `more`.
        var first: Action?
        var second: Action?
        var more: [Action] = []

        mutating func add(_ action: @escaping Action) {
            if first == nil { first = action } else if second == nil { second = action } else { more.append(action) }
        }

        /// The waiting actions in the order they came, leaving none.
        mutating func takeWaiting() -> (Action?, Action?, [Action]) {
            defer {
                first = nil
                second = nil
                more = []
            }
            return (first, second, more)
        }
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
        let ready: (actions: (Action?, Action?, [Action]), problem: Problem?)? = state.withLock { s in
            s.outstanding -= 1
            if s.problem == nil { s.problem = problem }
            guard s.outstanding == 0 else { return nil }
            return (s.takeWaiting(), s.problem)
        }
        guard let (actions, problem) = ready else { return }
        actions.0?(problem)
        actions.1?(problem)
        for action in actions.2 { action(problem) }
    }

    /// Runs `action` once every expected commit is settled (at once when none is outstanding),
    /// with the first refusal, if any. Never with a lock of this object held.
    func whenSettled(_ action: @escaping Action) {
        let now: Problem?? = state.withLock { s in
            guard s.outstanding == 0 else {
                s.add(action)
                return nil
            }
            return .some(s.problem)
        }
        if let problem = now { action(problem) }
    }
}
