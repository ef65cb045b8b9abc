/// What the application answers to one request. `.close` drops the connection (or resets
/// the HTTP/2 stream) without answering: the "reset" fault SDKs must survive. `.stream`
/// sends the head now and the body as the application writes it (Server-Sent Events); the
/// head's `body` is ignored.
public enum HTTPReply: Sendable {
    case response(HTTPResponse)
    case close
    case stream(HTTPResponse, ResponseStream)
}

/// The seam between transport and application: the server hands every parsed request,
/// from any protocol, to one responder and writes the reply it is given.
///
/// `reply` may be called on any thread, at once or later (a delayed answer), exactly once.
///
/// ```swift
/// struct Hello: Responder {
///     func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
///         reply(.response(HTTPResponse(status: 200, body: Array("hi\n".utf8))))
///     }
/// }
/// ```
public protocol Responder: Sendable {
    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void)
    /// The reply to `request` when it is given before this returns, else nil: then it goes to
    /// `late` when it comes. For a caller in the same process that waits for nothing (an SDK's
    /// in-process transport): a responder that answers in place returns the reply, with no
    /// box for it and no closure to carry it. The reply is the one ``respond(to:reply:)``
    /// gives.
    func replyAtOnce(to request: HTTPRequest, late: @escaping @Sendable (HTTPReply) -> Void) -> HTTPReply?
    /// True when the responder gathers work over requests (a group commit) and finishes it in
    /// ``batchEnded()``; a server asks once, when it starts.
    var wantsBatchEnds: Bool { get }
    /// For a responder that ``wantsBatchEnds``: called by a server loop, on the loop's thread,
    /// once the work queued on it when it last called ``respond(to:reply:)`` is done. Every
    /// `respond` call of a server loop is followed by one (one per round of ready sockets, however
    /// many requests it served), so work left for it is finished without a thread switch.
    func batchEnded()
}

extension Responder {
    /// Answers as it goes: no batch ends needed.
    public var wantsBatchEnds: Bool { false }

    /// Nothing gathered, nothing to finish.
    public func batchEnded() {}

    /// Through ``respond(to:reply:)``: ``firstReply(to:late:)``.
    public func replyAtOnce(to request: HTTPRequest, late: @escaping @Sendable (HTTPReply) -> Void) -> HTTPReply? {
        firstReply(to: request, late: late)
    }

    /// ``respond(to:reply:)``'s reply when given before it returns, else nil (and `late` gets
    /// it when it comes): what ``replyAtOnce(to:late:)`` does for a responder without a way
    /// of its own.
    public func firstReply(to request: HTTPRequest, late: @escaping @Sendable (HTTPReply) -> Void) -> HTTPReply? {
        let box = FirstReply(late: late)
        respond(to: request) { box.take($0) }
        return box.close()
    }
}
