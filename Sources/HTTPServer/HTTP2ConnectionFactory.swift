import HTTP

/// How HTTP/2 plugs into the server (filled by ``HTTP2HandlerFactory``).
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
/// Without a factory (``HTTPServer/makeHTTP2Factory(_:)`` returning nil), a preface gets `505` and a close (never a hang), and an upgrade
/// request is answered as plain HTTP/1.1 (RFC 9110 §7.8 lets a server ignore `Upgrade`).
/// An HTTP/2 handler sends responses through ``ServerContext/finalize(_:for:)`` too.
protocol HTTP2ConnectionFactory: Sendable {
    func makeHandler(for connection: Connection) -> any ConnectionHandler
    func makeUpgradedHandler(
        for connection: Connection,
        request: HTTPRequest,
        settings: String
    ) -> any ConnectionHandler
}
