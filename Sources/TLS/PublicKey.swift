import COpenSSL

/// A public key that verifies JWS signatures (ES256, RS256): the push stand-in checks provider
/// tokens and OAuth assertions with it.
///
/// ```swift
/// let key = try PublicKey(pem: Array(pemText.utf8))   // BEGIN PUBLIC KEY, or a certificate
/// key.verify(signature, over: Array("header.claims".utf8), as: .es256)   // true / false
/// ```
public final class PublicKey: @unchecked Sendable {
    // An EVP_PKEY is immutable after creation and safe to use from several threads.
    let pkey: OpaquePointer

    init(taking pkey: OpaquePointer) { self.pkey = pkey }
    deinit { EVP_PKEY_free(pkey) }

    /// `BEGIN PUBLIC KEY`, a certificate (its key), or a private key (its public half).
    public convenience init(pem: [UInt8], source: String = "the key") throws(TLSError) {
        if PEMText.contains(pem, label: "PUBLIC KEY") {
            let key = try MemoryBIO.reading(pem) { bio throws(TLSError) -> OpaquePointer in
                guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else {
                    throw TLSError.openSSL("\(source) holds no readable public key")
                }
                return key
            }
            self.init(taking: key)
        } else if PEMText.contains(pem, label: "CERTIFICATE") {
            let certificate = try Certificate.chain(pem: pem, source: source)[0]
            guard let key = X509_get_pubkey(certificate.x509) else {
                throw TLSError.openSSL("\(source): the certificate's key is unreadable")
            }
            self.init(taking: key)
        } else if PEMText.holdsPrivateKey(pem) {
            let privateKey = try PrivateKey(pem: pem, source: source)
            guard EVP_PKEY_up_ref(privateKey.pkey) == 1 else { throw TLSError.openSSL("out of memory") }
            self.init(taking: privateKey.pkey)
        } else {
            throw TLSError("\(source) holds no PEM public key, certificate or private key")
        }
    }

    public convenience init(file path: String, what: String = "public key file") throws(TLSError) {
        try self.init(pem: try MemoryBIO.readFile(path, what: what), source: "\(what) '\(path)'")
    }

    public var kind: PrivateKey.Kind { .of(pkey) }

    /// True when `signature` (JWS form: raw `r || s` for ES256) is valid over `message`.
    public func verify(_ signature: [UInt8], over message: [UInt8], as algorithm: SignatureAlgorithm) -> Bool {
        guard (try? algorithm.requireMatching(kind, what: "the key")) != nil else { return false }
        let der: [UInt8]
        if algorithm == .es256 {
            guard let converted = try? ECDSASignature.der(fromRaw: signature) else { return false }
            der = converted
        } else {
            der = signature
        }
        guard let md = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(md) }
        guard EVP_DigestVerifyInit(md, nil, EVP_sha256(), nil, pkey) == 1 else {
            _ = TLSError.drainErrorQueue()
            return false
        }
        let ok = der.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in EVP_DigestVerify(md, s.baseAddress, s.count, m.baseAddress, m.count)
            }
        }
        _ = TLSError.drainErrorQueue()
        return ok == 1
    }
}
