import COpenSSL

/// One TLS connection's state, fed bytes: ciphertext in, plaintext out, and the other way.
///
/// Built on two memory BIOs, so it never touches a socket: its owner reads the socket and
/// calls ``receive(_:)``, takes decrypted bytes from ``readPlaintext(into:deliver:)``, hands
/// plaintext to ``send(_:)`` and writes what ``drainCiphertext(into:)`` yields. A handshake
/// therefore runs on the owner's queue a message at a time and never blocks it; OpenSSL's
/// `WANT_READ` means "more ciphertext is needed", and with a memory BIO `WANT_WRITE` only means
/// "drain the ciphertext, then call again".
///
/// ```swift
/// let session = try context.makeSession(peerName: "127.0.0.1")
/// session.start()                                  // a client's ClientHello
/// session.drainCiphertext(into: &wire)             // -> socket
/// session.receive(bytesFromSocket)
/// switch session.readPlaintext(into: buffer, deliver: { http.feed($0) }) { ... }
/// ```
///
/// Not thread-safe: confine a session to its connection's queue.
public final class TLSSession {
    let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    public let isServer: Bool
    /// Plaintext given to ``send(_:)`` before the handshake finished, or that OpenSSL could not take yet.
    private var pendingPlaintext: [UInt8] = []
    private(set) public var failure: String?

    public enum ReadOutcome: Equatable {
        /// Everything received so far was used; wait for more ciphertext.
        case needMore
        /// The peer sent close_notify: no more plaintext will come.
        case closed
        /// The handshake or a record failed; the reason names the cause (e.g. a certificate problem).
        case failed(String)
    }

    init(context: TLSContext, peerName: String?) throws(TLSError) {
        guard let ssl = SSL_new(context.ctx) else { throw TLSError.openSSL("could not create a TLS session") }
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TLSError.openSSL("out of memory")
        }
        // An empty memory BIO means "retry later", not end of file.
        _ = lerix_bio_set_mem_eof_return(incoming, -1)
        _ = lerix_bio_set_mem_eof_return(outgoing, -1)
        SSL_set_bio(ssl, incoming, outgoing)
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        self.isServer = context.isServer
        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let peerName {
                if IPAddressText.isIPAddress(peerName) {
                    guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), peerName) == 1 else {
                        throw TLSError.openSSL("cannot check certificates for \(peerName)")
                    }
                } else {
                    guard lerix_ssl_set_sni(ssl, peerName) == 1, SSL_set1_host(ssl, peerName) == 1 else {
                        throw TLSError.openSSL("cannot check certificates for \(peerName)")
                    }
                }
            }
        }
    }

    deinit { SSL_free(ssl) }

    public var isHandshakeComplete: Bool { SSL_is_init_finished(ssl) == 1 }

    /// The ALPN protocol both sides agreed on ("h2", "http/1.1"), nil when none was.
    public var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// "TLSv1.3"
    public var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    /// A client starts the handshake (its ClientHello lands in the ciphertext); no-op for servers.
    public func start() {
        guard !isServer else { return }
        let result = SSL_do_handshake(ssl)
        if result != 1 { _ = classify(result) }
    }

    /// Ciphertext read from the socket.
    public func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        // A memory BIO grows as needed: the write takes everything.
        _ = BIO_write(incoming, bytes.baseAddress, Int32(bytes.count))
    }

    /// Advances the handshake and decrypts what can be decrypted, handing each plaintext chunk
    /// (valid only during the call) to `deliver`. Plaintext held back during the handshake is
    /// encrypted once it completes.
    public func readPlaintext(
        into buffer: UnsafeMutableRawBufferPointer,
        deliver: (UnsafeRawBufferPointer) -> Void
    ) -> ReadOutcome {
        if let failure { return .failed(failure) }
        while true {
            let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
            if n > 0 {
                flushPendingPlaintext()
                deliver(UnsafeRawBufferPointer(rebasing: buffer[0..<Int(n)]))
                continue
            }
            let outcome = classify(n)
            if outcome == .needMore { flushPendingPlaintext() }
            return outcome
        }
    }

    /// Encrypts `bytes` (held until the handshake completes).
    public func send(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, !bytes.isEmpty else { return }
        if !pendingPlaintext.isEmpty || !isHandshakeComplete {
            pendingPlaintext.append(contentsOf: bytes)
            flushPendingPlaintext()
            return
        }
        var offset = 0
        while offset < bytes.count {
            let n = SSL_write(ssl, bytes.baseAddress! + offset, Int32(min(bytes.count - offset, Int(Int32.max))))
            if n > 0 {
                offset += Int(n)
                continue
            }
            if classify(n) == .needMore { pendingPlaintext.append(contentsOf: bytes[offset...]) }
            return
        }
    }

    public func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { send($0) }
    }

    /// True while encrypted bytes wait for the socket.
    public var hasCiphertext: Bool { BIO_ctrl_pending(outgoing) > 0 }

    /// Appends the ciphertext produced so far (handshake messages, records, alerts) to `wire`.
    public func drainCiphertext(into wire: inout [UInt8]) {
        let pending = Int(BIO_ctrl_pending(outgoing))
        guard pending > 0 else { return }
        let start = wire.count
        wire.append(contentsOf: repeatElement(0, count: pending))
        let n = wire.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress! + start, Int32(pending)) }
        wire.removeLast(pending - Int(max(0, n)))
    }

    /// Queues a close_notify alert (drain the ciphertext afterwards).
    public func close() {
        guard failure == nil, isHandshakeComplete else { return }
        _ = SSL_shutdown(ssl)
        _ = TLSError.drainErrorQueue()
    }

    private func flushPendingPlaintext() {
        guard !pendingPlaintext.isEmpty, isHandshakeComplete, failure == nil else { return }
        var offset = 0
        while offset < pendingPlaintext.count {
            let n = pendingPlaintext.withUnsafeBytes {
                SSL_write(ssl, $0.baseAddress! + offset, Int32(min($0.count - offset, Int(Int32.max))))
            }
            if n <= 0 {
                _ = classify(n)
                break
            }
            offset += Int(n)
        }
        pendingPlaintext.removeFirst(offset)
    }

    private func classify(_ result: Int32) -> ReadOutcome {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .needMore
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        default:
            let reason = describeFailure()
            failure = reason
            return .failed(reason)
        }
    }

    private func describeFailure() -> String {
        let verify = SSL_get_verify_result(ssl)
        let queued = TLSError.drainErrorQueue()
        if !isServer, verify != X509_V_OK {
            return
                "the server's certificate was not accepted: \(String(cString: X509_verify_cert_error_string(verify)))"
        }
        return queued.isEmpty ? "the TLS connection failed" : "TLS failed: \(queued)"
    }
}
