import COpenSSL

/// One X.509 certificate held by OpenSSL: read from PEM, checked for expiry, written as PEM.
///
/// ```swift
/// let chain = try Certificate.chain(file: "cert.pem")   // leaf first, then intermediates
/// chain[0].isExpired(atUnixSeconds: now)                // false
/// ```
public final class Certificate: @unchecked Sendable {
    // An X509 is not mutated after it is read or signed, so it may be shared.
    let x509: OpaquePointer

    init(taking x509: OpaquePointer) { self.x509 = x509 }
    deinit { X509_free(x509) }

    /// Every certificate in a PEM file, in file order (a chain: leaf first).
    public static func chain(file path: String, what: String = "certificate file") throws(TLSError) -> [Certificate] {
        try chain(pem: try MemoryBIO.readFile(path, what: what), source: "\(what) '\(path)'")
    }

    public static func chain(pem: [UInt8], source: String = "the certificate") throws(TLSError) -> [Certificate] {
        var certificates: [Certificate] = []
        try MemoryBIO.reading(pem) { bio throws(TLSError) in
            while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) { certificates.append(Certificate(taking: x509)) }
            _ = TLSError.drainErrorQueue()
        }
        if certificates.isEmpty {
            if PEMText.holdsPrivateKey(pem) {
                throw TLSError(
                    "\(source) holds a private key, not a certificate (are the certificate and key swapped?)"
                )
            }
            throw TLSError("\(source) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        return certificates
    }

    /// True when the certificate's notAfter lies before `now` (Unix seconds).
    public func isExpired(atUnixSeconds now: Int64) -> Bool {
        var t = time_t(now)
        return X509_cmp_time(X509_get0_notAfter(x509), &t) < 0
    }

    /// True when the certificate's notBefore lies after `now` (Unix seconds).
    public func isNotYetValid(atUnixSeconds now: Int64) -> Bool {
        var t = time_t(now)
        return X509_cmp_time(X509_get0_notBefore(x509), &t) > 0
    }

    /// "Dec  3 08:00:00 2026 GMT"
    public var notAfterText: String { Self.text { ASN1_TIME_print($0, X509_get0_notAfter(x509)) } }
    public var notBeforeText: String { Self.text { ASN1_TIME_print($0, X509_get0_notBefore(x509)) } }

    /// The subject, one line ("CN=localhost, O=lerix-mock").
    public var subject: String {
        Self.text { X509_NAME_print_ex($0, X509_get_subject_name(x509), 0, lerix_xn_flag_oneline()) }
    }

    public var isCertificateAuthority: Bool { X509_check_ca(x509) != 0 }

    /// True when the certificate names `host` (DNS name, with wildcards) or the IP address `host`.
    public func matches(host: String) -> Bool {
        if X509_check_ip_asc(x509, host, 0) == 1 { return true }
        return X509_check_host(x509, host, host.utf8.count, 0, nil) == 1
    }

    public func pem() throws(TLSError) -> [UInt8] {
        try MemoryBIO.written { PEM_write_bio_X509($0, x509) }
    }

    /// The SHA-256 fingerprint, colon-separated hex (as browsers show it).
    public var sha256Fingerprint: String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard X509_digest(x509, EVP_sha256(), &digest, &length) == 1 else { return "" }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for (i, byte) in digest.prefix(Int(length)).enumerated() {
            if i > 0 { out.append(UInt8(ascii: ":")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func text(_ print: (OpaquePointer) -> Int32) -> String {
        guard let bytes = try? MemoryBIO.written({ print($0) > 0 ? 1 : 0 }) else { return "?" }
        return String(decoding: bytes, as: UTF8.self)
    }
}
