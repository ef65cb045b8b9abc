import HTTP

/// The byte-level protocol spoken on one connection: bytes in; writes, closes and
/// requests for the ``Responder`` out. ``HTTP1Handler`` is the first; HTTP/2 is the second.
///
/// A handler lives on its connection's event-loop queue and is only called there. It
/// writes by appending to ``Connection/output`` (the connection flushes once per event,
/// so a batch of pipelined answers leaves in one `send`), and ends the connection with
/// ``Connection/close()`` or ``Connection/closeAfterFlush()``.
protocol ConnectionHandler: AnyObject {
    /// Bytes read from the socket. They live in a shared buffer: copy what must outlive the call.
    func received(_ bytes: UnsafeRawBufferPointer)
    /// The peer ended its side: answer what is in flight, then close.
    func peerClosed()
    /// Graceful stop: accept nothing new, finish in-flight requests, then close.
    func drain()
    /// The connection closed, for whatever reason: drop pending work. Late answers from
    /// the responder are ignored.
    func connectionClosed()
    /// What the connection is doing, for its timeouts.
    var activity: ConnectionActivity { get }
}

/// Which timeout applies to a connection now.
enum ConnectionActivity: Equatable {
    /// Between requests: the idle (keep-alive) timeout.
    case idle
    /// A request head has started arriving: the header-read timeout, from its first byte.
    case readingHead
    /// A request body is arriving: the idle timeout, from the last progress.
    case readingBody
    /// Waiting for the application: no timeout (a delayed answer is the app's choice).
    case busy
}
