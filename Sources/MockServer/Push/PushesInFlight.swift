import Synchronization

/// Pushes handed to the sink whose tokens have not all got a result yet, for `GET /admin/clock`'s
/// `pushes_in_flight`: a harness in virtual time waits for it to reach 0 before it moves time on,
/// so every push the server sent has reached (or failed to reach) its gateway first.
///
/// ```swift
/// let inFlight = PushesInFlight()
/// inFlight.begin(push: 7, tokens: 2)
/// inFlight.settle(push: 7, results: [TokenDelivery(token: "a", result: .delivered)])
/// inFlight.count   // 1: one token of push 7 still has no result
/// ```
final class PushesInFlight: Sendable {
    /// Tokens still without a result, per push id.
    private let remaining = Mutex<[Int: Int]>([:])

    func begin(push id: Int, tokens: Int) {
        guard tokens > 0 else { return }
        remaining.withLock { $0[id, default: 0] += tokens }
    }

    /// Results that are still `pending` settle nothing.
    func settle(push id: Int, results: [TokenDelivery]) {
        let settled = results.count { $0.result != .pending }
        guard settled > 0 else { return }
        remaining.withLock { open in
            guard let left = open[id] else { return }
            open[id] = left > settled ? left - settled : nil
        }
    }

    var count: Int { remaining.withLock { $0.count } }
}
