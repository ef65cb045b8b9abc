import COpenSSL

/// The JWS algorithms the push providers use: APNs provider tokens are ES256, Google
/// service-account assertions RS256.
public enum SignatureAlgorithm: String, Sendable {
    case es256 = "ES256"
    case rs256 = "RS256"

    func requireMatching(_ kind: PrivateKey.Kind, what: String) throws(TLSError) {
        switch (self, kind) {
        case (.es256, .ecP256), (.rs256, .rsa): return
        case (.es256, _):
            throw TLSError("\(what) is \(kind.label), but ES256 needs an EC P-256 key (an APNs .p8 auth key)")
        case (.rs256, _): throw TLSError("\(what) is \(kind.label), but RS256 needs an RSA key")
        }
    }
}

extension PrivateKey.Kind {
    public var label: String {
        switch self {
        case .ecP256: return "an EC P-256 key"
        case .rsa: return "an RSA key"
        case .other(let name): return "a \(name) key"
        }
    }
}

extension PrivateKey.Kind {
    /// What kind of key OpenSSL holds in `pkey`.
    static func of(_ pkey: OpaquePointer) -> PrivateKey.Kind {
        switch EVP_PKEY_get_base_id(pkey) {
        case EVP_PKEY_RSA: return .rsa
        case EVP_PKEY_EC:
            let group = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { name -> String in
                var length = 0
                guard EVP_PKEY_get_group_name(pkey, name.baseAddress, 64, &length) == 1 else { return "" }
                return String(cString: name.baseAddress!)
            }
            return group == "prime256v1" || group == "P-256" ? .ecP256 : .other("EC \(group)")
        default:
            return .other(EVP_PKEY_get0_type_name(pkey).map { String(cString: $0) } ?? "unknown")
        }
    }
}
