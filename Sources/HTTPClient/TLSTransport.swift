import TLS

/// A client `TLSSession` as a ``ConnectionTransport``: ciphertext on the wire, plaintext for the protocol,
/// the handshake driven by the bytes that arrive (it never blocks the reactor).
///
/// ```swift
/// let context = try TLSContext.client(alpn: ["http/1.1"])
/// let transport = try TLSTransport(session: context.makeSession(peerName: "localhost"),
///                                  buffer: reactor.plaintextBuffer)
/// ```
public final class TLSTransport: ConnectionTransport {
    let session: TLSSession
    /// Scratch for decrypted bytes (the reactor's shared one: plaintext is delivered before the next read).
    private let buffer: UnsafeMutableRawBufferPointer

    public init(session: TLSSession, buffer: UnsafeMutableRawBufferPointer) {
        self.session = session
        self.buffer = buffer
    }

    public var isEstablished: Bool { session.isHandshakeComplete }
    public var negotiatedProtocol: String? { session.negotiatedProtocol }

    public func start(wire: inout [UInt8]) {
        session.start()
        session.drainCiphertext(into: &wire)
    }

    public func receive(
        _ bytes: UnsafeRawBufferPointer,
        wire: inout [UInt8],
        deliver: (UnsafeRawBufferPointer) -> Void
    ) -> TransportState {
        session.receive(bytes)
        let outcome = session.readPlaintext(into: buffer, deliver: deliver)
        session.drainCiphertext(into: &wire)
        switch outcome {
        case .needMore: return .open
        case .closed: return .peerClosed
        case .failed(let reason): return .failed(reason)
        }
    }

    public func send(_ plaintext: UnsafeRawBufferPointer, wire: inout [UInt8]) {
        session.send(plaintext)
        session.drainCiphertext(into: &wire)
    }

    public func finish(wire: inout [UInt8]) {
        session.close()
        session.drainCiphertext(into: &wire)
    }
}
