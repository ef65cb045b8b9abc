import COpenSSL

/// Makes X.509 certificates with OpenSSL: a local certificate authority and server certificates
/// it signs (what `lerix-mock dev-cert` writes, and what tests use instead of committed files).
///
/// ```swift
/// let ca = try CertificateIssuer.authority(commonName: "lerix-mock dev CA", now: now)
/// let leaf = try CertificateIssuer.server(names: ["localhost", "127.0.0.1", "::1"], signedBy: ca, now: now)
/// ```
public enum CertificateIssuer {
    /// A certificate with its private key.
    public struct Issued: Sendable {
        public let certificate: Certificate
        public let key: PrivateKey

        public init(certificate: Certificate, key: PrivateKey) {
            self.certificate = certificate
            self.key = key
        }
    }

    /// A self-signed CA certificate (basicConstraints CA:TRUE, pathlen 0) valid for `days` from `now`.
    public static func authority(commonName: String, now: Int64, days: Int = 3650) throws(TLSError) -> Issued {
        let key = try PrivateKey.generateP256()
        let x509 = try build(subject: commonName, key: key, now: now, days: days)
        guard X509_set_issuer_name(x509, X509_get_subject_name(x509)) == 1 else {
            X509_free(x509)
            throw TLSError.openSSL("issuer name")
        }
        let certificate = Certificate(taking: x509)
        try addExtensions(
            to: x509,
            issuer: x509,
            [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ]
        )
        try sign(x509, with: key)
        return Issued(certificate: certificate, key: key)
    }

    /// A server certificate for `names` (DNS names and IP addresses, told apart automatically),
    /// signed by `issuer`, valid for `days` (at most 825, which Apple platforms require).
    public static func server(
        names: [String],
        signedBy issuer: Issued,
        now: Int64,
        days: Int = 825,
        notBefore: Int64? = nil
    ) throws(TLSError) -> Issued {
        guard let first = names.first else { throw TLSError("a server certificate needs at least one name") }
        let key = try PrivateKey.generateP256()
        let x509 = try build(subject: first, key: key, now: notBefore ?? now, days: days)
        let certificate = Certificate(taking: x509)
        guard X509_set_issuer_name(x509, X509_get_subject_name(issuer.certificate.x509)) == 1 else {
            throw TLSError.openSSL("issuer name")
        }
        let alternativeNames = names.map { IPAddressText.isIPAddress($0) ? "IP:\($0)" : "DNS:\($0)" }.joined(
            separator: ","
        )
        try addExtensions(
            to: x509,
            issuer: issuer.certificate.x509,
            [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_alt_name, alternativeNames),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ]
        )
        try sign(x509, with: issuer.key)
        return Issued(certificate: certificate, key: key)
    }

    private static func build(subject: String, key: PrivateKey, now: Int64, days: Int) throws(TLSError) -> OpaquePointer
    {
        guard let x509 = X509_new() else { throw TLSError.openSSL("out of memory") }
        var ok = X509_set_version(x509, 2) == 1
        // A random 127-bit serial, as CAs must use unpredictable serials.
        var serialBytes = [UInt8](repeating: 0, count: 16)
        ok = ok && RAND_bytes(&serialBytes, 16) == 1
        serialBytes[0] &= 0x7f
        if ok, let bn = BN_bin2bn(serialBytes, 16, nil) {
            ok = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x509)) != nil
            BN_free(bn)
        } else {
            ok = false
        }
        ok = ok && ASN1_TIME_set(X509_getm_notBefore(x509), time_t(now - 60)) != nil
        ok = ok && ASN1_TIME_set(X509_getm_notAfter(x509), time_t(now + Int64(days) * 86_400)) != nil
        ok = ok && X509_set_pubkey(x509, key.pkey) == 1
        let name = X509_get_subject_name(x509)
        ok = ok && X509_NAME_add_entry_by_txt(name, "O", lerix_mbstring_asc(), "lerix-mock", -1, -1, 0) == 1
        ok = ok && X509_NAME_add_entry_by_txt(name, "CN", lerix_mbstring_asc(), subject, -1, -1, 0) == 1
        guard ok else {
            X509_free(x509)
            throw TLSError.openSSL("could not fill in the certificate for '\(subject)'")
        }
        return x509
    }

    private static func addExtensions(
        to x509: OpaquePointer,
        issuer: OpaquePointer,
        _ list: [(Int32, String)]
    ) throws(TLSError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer, x509, nil, nil, 0)
        for (nid, value) in list {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw TLSError.openSSL("certificate extension '\(value)' rejected")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else {
                throw TLSError.openSSL("certificate extension '\(value)' not added")
            }
        }
    }

    private static func sign(_ x509: OpaquePointer, with key: PrivateKey) throws(TLSError) {
        guard X509_sign(x509, key.pkey, EVP_sha256()) > 0 else {
            throw TLSError.openSSL("signing the certificate failed")
        }
    }
}

/// Tells IP literals from host names (for subjectAltName and for TLS peer checks).
enum IPAddressText {
    static func isIPAddress(_ text: String) -> Bool {
        guard let parsed = a2i_IPADDRESS(text) else {
            _ = TLSError.drainErrorQueue()
            return false
        }
        ASN1_OCTET_STRING_free(parsed)
        return true
    }
}
