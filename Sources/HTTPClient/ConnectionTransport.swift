/// The seam between a client socket and the protocol spoken on it: wire bytes in and out on
/// one side, plaintext on the other. ``PlaintextTransport`` passes bytes through (h1, h2c);
/// ``TLSTransport`` runs a `TLSSession` over memory BIOs. A protocol connection never knows
/// which one it sits on.
///
/// Confined to its socket's reactor queue.
///
/// ```swift
/// var wire: [UInt8] = []
/// transport.start(wire: &wire)                     // TLS: the ClientHello
/// let state = transport.receive(bytesFromSocket, wire: &wire) { plaintext in h1.feed(plaintext) }
/// transport.send(requestBytes, wire: &wire)        // -> socket
/// ```
public protocol ConnectionTransport: AnyObject {
    /// True once plaintext flows both ways (plaintext at once; TLS after the handshake).
    var isEstablished: Bool { get }
    /// The protocol agreed by ALPN ("h2", "http/1.1"); nil for plaintext or when none was.
    var negotiatedProtocol: String? { get }
    /// TCP is connected: bytes to send first (a TLS client's first flight) go into `wire`.
    func start(wire: inout [UInt8])
    /// Bytes read from the socket. Plaintext for the protocol goes to `deliver` (valid only
    /// during the call); bytes to send back (handshake messages, alerts) go into `wire`.
    func receive(
        _ bytes: UnsafeRawBufferPointer,
        wire: inout [UInt8],
        deliver: (UnsafeRawBufferPointer) -> Void
    ) -> TransportState
    /// Plaintext from the protocol, as wire bytes (TLS holds it until the handshake is done).
    func send(_ plaintext: UnsafeRawBufferPointer, wire: inout [UInt8])
    /// The protocol is done: TLS queues its close_notify.
    func finish(wire: inout [UInt8])
}

/// What a transport made of the bytes it received.
public enum TransportState: Equatable, Sendable {
    /// Still open (handshaking or established).
    case open
    /// The peer ended the session in band (TLS close_notify): no more plaintext comes.
    case peerClosed
    /// The handshake or a record failed; the reason names the cause (a certificate problem).
    case failed(String)
}

/// Bytes pass through unchanged: HTTP/1.1 and h2c over TCP.
public final class PlaintextTransport: ConnectionTransport {
    public init() {}
    public var isEstablished: Bool { true }
    public var negotiatedProtocol: String? { nil }
    public func start(wire: inout [UInt8]) {}

    public func receive(
        _ bytes: UnsafeRawBufferPointer,
        wire: inout [UInt8],
        deliver: (UnsafeRawBufferPointer) -> Void
    ) -> TransportState {
        deliver(bytes)
        return .open
    }

    public func send(_ plaintext: UnsafeRawBufferPointer, wire: inout [UInt8]) {
        wire.append(contentsOf: plaintext)
    }

    public func finish(wire: inout [UInt8]) {}
}
