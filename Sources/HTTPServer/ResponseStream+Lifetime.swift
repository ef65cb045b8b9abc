import Dispatch
import HTTP

extension ResponseStream {
    /// Both transports (HTTP/1.1 and HTTP/2) end a stream with a lifetime the same way: a
    /// one-shot timer on the connection's loop that finishes it (a no-op once it has ended).
    func finishAfterLifetime(on queue: DispatchQueue) {
        guard let lifetime else { return }
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(lifetime.nanosecondsClamped))) { [weak self] in
            self?.finish()
        }
    }
}
