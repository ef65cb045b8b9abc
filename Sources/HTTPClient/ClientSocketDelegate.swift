/// The protocol connection sitting on a ``ClientSocket`` (HTTP/1.1, HTTP/2): plaintext in,
/// lifecycle events, and its own deadline. Called only on the socket's reactor queue.
public protocol ClientSocketDelegate: AnyObject {
    /// TCP is connected and the transport established (a TLS handshake done, ALPN known):
    /// the protocol may send.
    func socketEstablished(_ socket: ClientSocket)
    /// Plaintext from the peer, valid only during the call.
    func socket(_ socket: ClientSocket, received bytes: UnsafeRawBufferPointer)
    /// The peer finished sending (end of stream, or TLS close_notify). Reading stops; the
    /// socket stays open until the delegate closes it (a read-until-close body ends here).
    func socketPeerClosed(_ socket: ClientSocket)
    /// The socket is closed: by ``ClientSocket/close()`` (nil), or by an error (connect
    /// failed or timed out, TLS failed, reset). The last call the delegate gets.
    func socket(_ socket: ClientSocket, closedWith error: HTTPClientError?)
    /// Once established: monotonic nanoseconds (`Reactor.now()`) after which
    /// ``socketDeadlinePassed(_:)`` is due (a read timeout); 0 for none.
    var socketDeadline: UInt64 { get }
    /// The reactor's sweep found ``socketDeadline`` passed.
    func socketDeadlinePassed(_ socket: ClientSocket)
}
