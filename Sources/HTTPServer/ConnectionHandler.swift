import HTTP

/// The byte-level protocol spoken on one connection: bytes in; writes, closes and
/// requests for the ``Responder`` out. ``HTTP1Handler`` is the first; HTTP/2 is the second.
///
/// A handler lives on its connection's event-loop queue and is only called there. It
/// writes through ``Connection/enqueue(_:)`` (the connection flushes once per event, so a
/// batch of pipelined answers leaves in one `send`), and ends the connection with
/// ``Connection/close()`` or ``Connection/closeAfterFlush()``. While
/// ``Connection/isOutputBacklogged`` holds it produces no new answers; the connection then
/// reads nothing more and calls ``outputDrained()`` once the peer has caught up.
protocol ConnectionHandler: AnyObject {
    /// Bytes read from the socket. They live in a shared buffer: copy what must outlive the call.
    func received(_ bytes: UnsafeRawBufferPointer)
    /// The peer ended its side: answer what is in flight, then close.
    func peerClosed()
    /// Graceful stop: accept nothing new, finish in-flight requests, then close.
    func drain()
    /// Unsent output fell under the low-water mark: produce what was held back.
    func outputDrained()
    /// The connection closed, for whatever reason: drop pending work. Late answers from
    /// the responder are ignored.
    func connectionClosed()
    /// What the connection is doing, for its timeouts.
    var activity: ConnectionActivity { get }
    /// When the oldest request still arriving began (monotonic ns), nil when none is: the
    /// whole request must arrive within ``HTTPServer/Configuration/requestReadTimeout``.
    var requestStartedAt: UInt64? { get }
    /// What to tell a client whose request timed out before the connection closes (`408`
    /// on HTTP/1.1), or nil to close without a word.
    var timeoutResponse: HTTPResponse? { get }
}

/// Which timeout applies to a connection now.
enum ConnectionActivity: Equatable {
    /// Between requests: the idle (keep-alive) timeout.
    case idle
    /// A request head has started arriving: the header-read timeout, from its first byte.
    case readingHead
    /// A request body is arriving: the idle timeout from the last progress, and the
    /// request-read timeout from the request's start.
    case readingBody
    /// Waiting for the application: no timeout (a delayed answer is the app's choice).
    case busy
}
