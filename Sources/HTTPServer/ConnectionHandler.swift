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

/// How HTTP/2 plugs into the server (the seam the HTTP/2 helper fills).
///
/// Set ``ServerContext/http2`` (built in ``HTTPServer/init(configuration:responder:log:)``)
/// to a factory, and ``HTTP1Handler`` hands connections over at the two places HTTP/2
/// can start on a cleartext port:
///
/// 1. **Prior knowledge**: the first bytes of a connection are the client preface
///    `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n` (``HTTP1Handler/preface``). The HTTP/1 handler
///    withholds the bytes while they match, then calls ``makeHandler(for:)`` and feeds the
///    new handler every byte received so far, preface included.
/// 2. **Upgrade**: an HTTP/1.1 request with `Upgrade: h2c`, `HTTP2-Settings` and
///    `Connection: Upgrade, HTTP2-Settings`, arriving when no earlier answer is pending.
///    The HTTP/1 handler writes `101 Switching Protocols`, calls
///    ``makeUpgradedHandler(for:request:settings:)`` (the request becomes stream 1, which
///    the new handler answers through ``ServerContext/responder``), and feeds it the bytes
///    that followed the request.
///
/// Without a factory, a preface gets `505` and a close (never a hang), and an upgrade
/// request is answered as plain HTTP/1.1 (RFC 9110 §7.8 lets a server ignore `Upgrade`).
/// An HTTP/2 handler sends responses through ``ServerContext/finalize(_:for:)`` too.
protocol HTTP2ConnectionFactory: Sendable {
    func makeHandler(for connection: Connection) -> any ConnectionHandler
    func makeUpgradedHandler(for connection: Connection, request: HTTPRequest, settings: String) -> any ConnectionHandler
}
