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
}
