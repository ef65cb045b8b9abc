import COpenSSL

/// An OpenSSL `SSL_CTX`: the certificate, key, trust and ALPN settings shared by every
/// connection of one server or one client. Immutable once made, so one context serves every
/// event loop; each connection gets its own ``TLSSession``.
///
/// ```swift
/// let server = try TLSContext.server(certificateFile: "cert.pem", keyFile: "key.pem", now: unixNow)
/// let client = try TLSContext.client(trustingAlso: "ca.pem", alpn: ["h2"])
/// let session = try client.makeSession(peerName: "127.0.0.1")
/// ```
public final class TLSContext: @unchecked Sendable {
    // SSL_CTX is safe to share between threads once configured; nothing changes it after init.
    let ctx: OpaquePointer
    public let isServer: Bool
    /// The server certificate chain (leaf first); empty for clients.
    public let chain: [Certificate]

    private init(ctx: OpaquePointer, isServer: Bool, chain: [Certificate]) {
        self.ctx = ctx
        self.isServer = isServer
        self.chain = chain
    }

    deinit { SSL_CTX_free(ctx) }

    /// A server context: the chain in `certificateFile` (leaf first, intermediates after), the
    /// key in `keyFile` (PKCS#8 or traditional PEM), ALPN `h2` preferred over `http/1.1`.
    /// Throws with a message naming the file for a missing or unreadable file, a file holding the
    /// wrong thing, a key that does not match the certificate, or a certificate that expired
    /// (or is not valid yet) at `now` (Unix seconds).
    public static func server(certificateFile: String, keyFile: String, now: Int64) throws(TLSError) -> TLSContext {
        let chain = try Certificate.chain(file: certificateFile, what: "--tls-cert file")
        let key = try PrivateKey(file: keyFile, what: "--tls-key file")
        let leaf = chain[0]
        if leaf.isExpired(atUnixSeconds: now) {
            throw TLSError(
                "--tls-cert file '\(certificateFile)': the certificate for \(leaf.subject) expired on \(leaf.notAfterText); make a new one (lerix-mock dev-cert)"
            )
        }
        if leaf.isNotYetValid(atUnixSeconds: now) {
            throw TLSError(
                "--tls-cert file '\(certificateFile)': the certificate for \(leaf.subject) is not valid before \(leaf.notBeforeText) (check the clock)"
            )
        }
        for (i, certificate) in chain.enumerated().dropFirst() where certificate.isExpired(atUnixSeconds: now) {
            throw TLSError(
                "--tls-cert file '\(certificateFile)': chain certificate \(i + 1) (\(certificate.subject)) expired on \(certificate.notAfterText)"
            )
        }
        guard let ctx = SSL_CTX_new(TLS_server_method()) else {
            throw TLSError.openSSL("could not create a TLS context")
        }
        let context = TLSContext(ctx: ctx, isServer: true, chain: chain)
        _ = lerix_ssl_ctx_set_min_tls12(ctx)
        _ = lerix_ssl_ctx_set_mode(ctx, lerix_ssl_mode_partial_write())
        guard SSL_CTX_use_certificate(ctx, leaf.x509) == 1 else {
            throw TLSError.openSSL("--tls-cert file '\(certificateFile)': OpenSSL refused the certificate")
        }
        for certificate in chain.dropFirst() {
            // SSL_CTX_add1_chain_cert is a macro over SSL_CTX_ctrl.
            guard SSL_CTX_ctrl(ctx, SSL_CTRL_CHAIN_CERT, 1, UnsafeMutableRawPointer(certificate.x509)) == 1 else {
                throw TLSError.openSSL(
                    "--tls-cert file '\(certificateFile)': OpenSSL refused chain certificate \(certificate.subject)"
                )
            }
        }
        guard SSL_CTX_use_PrivateKey(ctx, key.pkey) == 1, SSL_CTX_check_private_key(ctx) == 1 else {
            _ = TLSError.drainErrorQueue()
            throw TLSError(
                "--tls-key file '\(keyFile)' does not match the certificate in '\(certificateFile)' (\(leaf.subject)): give the key the certificate was made for"
            )
        }
        SSL_CTX_set_alpn_select_cb(
            ctx,
            { _, out, outLength, offered, offeredLength, _ in
                var chosen: UnsafeMutablePointer<UInt8>?
                let server = ALPN.serverPreference
                let result = SSL_select_next_proto(
                    &chosen,
                    outLength,
                    server.baseAddress,
                    UInt32(server.count),
                    offered,
                    offeredLength
                )
                guard result == OPENSSL_NPN_NEGOTIATED, let chosen else { return SSL_TLSEXT_ERR_NOACK }
                out?.pointee = UnsafePointer(chosen)
                return SSL_TLSEXT_ERR_OK
            },
            nil
        )
        return context
    }

    /// A client context that verifies the peer against the system trust store, plus the CA
    /// certificates in `caFile` when given, offering `alpn` (e.g. `["h2"]`).
    public static func client(trustingAlso caFile: String? = nil, alpn: [String] = []) throws(TLSError) -> TLSContext {
        if let caFile {
            let authorities = try Certificate.chain(file: caFile, what: "--tls-ca file")
            if !authorities.contains(where: { $0.isCertificateAuthority }) {
                throw TLSError(
                    "--tls-ca file '\(caFile)' holds no CA certificate (basicConstraints CA:TRUE); give the CA that signed the server's certificate"
                )
            }
        }
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw TLSError.openSSL("could not create a TLS context")
        }
        let context = TLSContext(ctx: ctx, isServer: false, chain: [])
        _ = lerix_ssl_ctx_set_min_tls12(ctx)
        _ = lerix_ssl_ctx_set_mode(ctx, lerix_ssl_mode_partial_write())
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        // No system store is not fatal: --tls-ca may be all that is needed.
        if SSL_CTX_set_default_verify_paths(ctx) != 1 { _ = TLSError.drainErrorQueue() }
        if let caFile, SSL_CTX_load_verify_locations(ctx, caFile, nil) != 1 {
            throw TLSError.openSSL("--tls-ca file '\(caFile)' could not be loaded")
        }
        if !alpn.isEmpty {
            let wire = ALPN.wire(alpn)
            // Returns 0 on success, unlike most of OpenSSL.
            guard wire.withUnsafeBufferPointer({ SSL_CTX_set_alpn_protos(ctx, $0.baseAddress, UInt32($0.count)) }) == 0
            else {
                throw TLSError.openSSL("ALPN list refused")
            }
        }
        return context
    }

    /// A session for one connection. Clients name the peer they dial: its certificate must
    /// match that host name or IP address, and host names go out as SNI.
    public func makeSession(peerName: String? = nil) throws(TLSError) -> TLSSession {
        try TLSSession(context: self, peerName: peerName)
    }
}

/// ALPN protocol lists in their wire form (length-prefixed names).
enum ALPN {
    /// h2 first: a client offering both gets HTTP/2. OpenSSL's answer points into this list,
    /// so it lives in memory that is never freed or moved (and never written after init).
    nonisolated(unsafe) static let serverPreference: UnsafeBufferPointer<UInt8> = {
        let bytes = wire(["h2", "http/1.1"])
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        return UnsafeBufferPointer(buffer)
    }()

    static func wire(_ names: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for name in names where !name.isEmpty && name.utf8.count < 256 {
            out.append(UInt8(name.utf8.count))
            out.append(contentsOf: name.utf8)
        }
        return out
    }
}
