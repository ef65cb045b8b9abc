import COpenSSL

/// An EC P-256 or RSA private key held by OpenSSL: signs JWTs (ES256, RS256) and certificates.
///
/// ```swift
/// let key = try PrivateKey(pem: Array(pemText.utf8))      // PKCS#8 or traditional PEM
/// let signature = try key.sign(Array("header.claims".utf8), as: .es256)
/// ```
public final class PrivateKey: @unchecked Sendable {
    // An EVP_PKEY is immutable after creation and safe to use from several threads.
    let pkey: OpaquePointer

    public enum Kind: Sendable, Equatable {
        case ecP256, rsa
        case other(String)
    }

    init(taking pkey: OpaquePointer) { self.pkey = pkey }
    deinit { EVP_PKEY_free(pkey) }

    /// Parses a PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`, as in an APNs `.p8` or a Google
    /// service account) or traditional (`BEGIN EC PRIVATE KEY`, `BEGIN RSA PRIVATE KEY`).
    public convenience init(pem: [UInt8], source: String = "the key") throws(TLSError) {
        let key = try MemoryBIO.reading(pem) { bio throws(TLSError) -> OpaquePointer in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                let why = TLSError.drainErrorQueue()
                if PEMText.contains(pem, label: "ENCRYPTED PRIVATE KEY") {
                    throw TLSError("\(source) is encrypted: give an unencrypted key (openssl pkey -in KEY -out PLAIN)")
                }
                if PEMText.contains(pem, label: "CERTIFICATE") && !PEMText.holdsPrivateKey(pem) {
                    throw TLSError("\(source) holds a certificate, not a private key")
                }
                throw TLSError("\(source) holds no PEM private key" + (why.isEmpty ? "" : " (\(why))"))
            }
            return key
        }
        self.init(taking: key)
    }

    public convenience init(file path: String, what: String = "key file") throws(TLSError) {
        try self.init(pem: try MemoryBIO.readFile(path, what: what), source: "\(what) '\(path)'")
    }

    /// A new P-256 key (dev certificates, tests).
    public static func generateP256() throws(TLSError) -> PrivateKey {
        try generate("EC") { EVP_PKEY_CTX_set_group_name($0, "P-256") }
    }

    /// A new RSA key of `bits` bits (service-account stand-ins in tests).
    public static func generateRSA(bits: Int = 2048) throws(TLSError) -> PrivateKey {
        try generate("RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) }
    }

    private static func generate(
        _ algorithm: String,
        configure: (OpaquePointer) -> Int32
    ) throws(TLSError) -> PrivateKey {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw TLSError.openSSL("no \(algorithm) support")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, configure(ctx) == 1, EVP_PKEY_generate(ctx, &key) == 1, let key else {
            throw TLSError.openSSL("\(algorithm) key generation failed")
        }
        return PrivateKey(taking: key)
    }

    public var kind: Kind { Kind.of(pkey) }

    /// PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    public func pem() throws(TLSError) -> [UInt8] {
        try MemoryBIO.written { PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) }
    }

    /// The matching public key.
    public func publicKey() throws(TLSError) -> PublicKey {
        return try PublicKey(pem: MemoryBIO.written { PEM_write_bio_PUBKEY($0, pkey) })
    }

    /// A JWS signature over `message`: for ES256 the raw 64-byte `r || s` (RFC 7518 §3.4),
    /// for RS256 PKCS#1 v1.5 with SHA-256.
    public func sign(_ message: [UInt8], as algorithm: SignatureAlgorithm) throws(TLSError) -> [UInt8] {
        try algorithm.requireMatching(kind, what: "the key")
        guard let md = EVP_MD_CTX_new() else { throw TLSError.openSSL("out of memory") }
        defer { EVP_MD_CTX_free(md) }
        guard EVP_DigestSignInit(md, nil, EVP_sha256(), nil, pkey) == 1 else {
            throw TLSError.openSSL("signing could not start")
        }
        var length = 0
        let ok = message.withUnsafeBufferPointer { m in EVP_DigestSign(md, nil, &length, m.baseAddress, m.count) }
        guard ok == 1 else { throw TLSError.openSSL("signing failed") }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = signature.withUnsafeMutableBufferPointer { s in
            message.withUnsafeBufferPointer { m in EVP_DigestSign(md, s.baseAddress, &length, m.baseAddress, m.count) }
        }
        guard signed == 1 else { throw TLSError.openSSL("signing failed") }
        signature.removeLast(signature.count - length)
        return algorithm == .es256 ? try ECDSASignature.raw(fromDER: signature) : signature
    }
}
