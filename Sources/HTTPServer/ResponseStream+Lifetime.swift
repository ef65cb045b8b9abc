import Dispatch
import HTTP

extension ResponseStream {
    /// Both transports (HTTP/1.1 and HTTP/2) end a stream with a lifetime the same way: a
    /// one-shot timer on the connection's loop that finishes it (a no-op once it has ended).
    func finishAfterLifetime(on queue: DispatchQueue) {
        guard let milliseconds = lifetimeMilliseconds else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [weak self] in self?.finish() }
    }
}
