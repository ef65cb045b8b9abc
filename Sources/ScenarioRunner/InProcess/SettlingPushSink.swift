import Clock
import Dispatch
import MockServer
import Synchronization

/// Wraps the real push path (``GatewayPushSink`` → the push-gateway stand-in over h2c) so the
/// runner can wait, after each step, until every push sent so far has a result for every
/// token; then the pushes, with the tokens the gateway accepted, go to the owning devices.
/// Waiting for all results makes the asynchronous path deterministic.
final class SettlingPushSink: PushSink, @unchecked Sendable {
    private struct Pending {
        var id: Int
        var sentAt: Instant
        var tokens: [String]
        var remaining: Set<String>
        var accepted: Set<String>
    }

    private struct State {
        var pending: [Int: Pending] = [:]
        var done: [ObservedPush] = []
    }

    private let inner: any PushSink
    private let clock: any Clock
    private let state = Mutex(State())
    private let changed = DispatchSemaphore(value: 0)

    init(inner: any PushSink, clock: any Clock) {
        self.inner = inner
        self.clock = clock
    }

    func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        let tokens = push.tokens.map(\.token)
        let sentAt = clock.now
        state.withLock { s in
            if tokens.isEmpty {
                s.done.append(ObservedPush(id: push.id, sentAt: sentAt, tokens: []))
            } else {
                s.pending[push.id] = Pending(id: push.id, sentAt: sentAt, tokens: tokens, remaining: Set(tokens), accepted: [])
            }
        }
        inner.deliver(push) { [self] results in
            state.withLock { s in
                guard var p = s.pending[push.id] else { return }
                for r in results where p.remaining.contains(r.token) {
                    p.remaining.remove(r.token)
                    if r.result == .delivered { p.accepted.insert(r.token) }
                }
                if p.remaining.isEmpty {
                    s.pending[push.id] = nil
                    s.done.append(ObservedPush(id: p.id, sentAt: p.sentAt, tokens: p.tokens.filter(p.accepted.contains)))
                } else {
                    s.pending[push.id] = p
                }
            }
            completion(results)
            changed.signal()
        }
    }

    /// Waits until no push is waiting for results (at most `timeoutSeconds` of real time),
    /// then hands over the finished pushes, oldest first.
    func drain(timeoutSeconds: Double = 60) -> [ObservedPush] {
        let deadline = DispatchTime.now() + timeoutSeconds
        while state.withLock({ !$0.pending.isEmpty }) {
            guard changed.wait(timeout: min(deadline, .now() + .milliseconds(50))) == .success || DispatchTime.now() < deadline else { break }
        }
        return state.withLock { s in
            defer { s.done = [] }
            return s.done.sorted { $0.id < $1.id }
        }
    }

    /// Pushes still waiting for results (a stuck gateway), for the failure message.
    var unsettled: Int { state.withLock { $0.pending.count } }
}
