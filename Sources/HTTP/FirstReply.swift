import Synchronization

/// A reply given while `respond` runs, kept; one given after ``close()`` goes to `late`.
///
/// ```swift
/// let box = FirstReply(late: { _ in })
/// responder.respond(to: request) { box.take($0) }
/// let reply = box.close()    // nil: the reply comes later, to `late`
/// ```
public final class FirstReply: Sendable {
    private let state = Mutex<(closed: Bool, reply: HTTPReply?)>((false, nil))
    private let late: @Sendable (HTTPReply) -> Void

    public init(late: @escaping @Sendable (HTTPReply) -> Void) { self.late = late }

    public func take(_ reply: HTTPReply) {
        let kept = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            if case .none = s.reply { s.reply = reply }
            return true
        }
        if !kept { late(reply) }
    }

    /// What arrived so far, moved out (nil: nothing yet).
    public func close() -> HTTPReply? {
        state.withLock { s in
            s.closed = true
            return s.reply.take()
        }
    }
}
