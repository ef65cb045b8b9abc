import COpenSSL

/// ECDSA signatures between OpenSSL's DER form and JWS's fixed-width `r || s` (RFC 7518 §3.4).
enum ECDSASignature {
    static let width = 32

    static func raw(fromDER der: [UInt8]) throws(TLSError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let sig = parsed else { throw TLSError.openSSL("unreadable ECDSA signature") }
        defer { ECDSA_SIG_free(sig) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(sig, &r, &s)
        var out = [UInt8](repeating: 0, count: 2 * width)
        let ok = out.withUnsafeMutableBufferPointer { o in
            BN_bn2binpad(r, o.baseAddress, Int32(width)) == Int32(width)
                && BN_bn2binpad(s, o.baseAddress! + width, Int32(width)) == Int32(width)
        }
        guard ok else { throw TLSError.openSSL("ECDSA signature out of range") }
        return out
    }

    static func der(fromRaw raw: [UInt8]) throws(TLSError) -> [UInt8] {
        guard raw.count == 2 * width else { throw TLSError("an ES256 signature is 64 bytes, not \(raw.count)") }
        guard let sig = ECDSA_SIG_new() else { throw TLSError.openSSL("out of memory") }
        defer { ECDSA_SIG_free(sig) }
        let (r, s) = raw.withUnsafeBufferPointer { b in
            (BN_bin2bn(b.baseAddress, Int32(width), nil), BN_bin2bn(b.baseAddress! + width, Int32(width), nil))
        }
        guard let r, let s, ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw TLSError.openSSL("out of memory")
        }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { throw TLSError.openSSL("ECDSA signature encoding failed") }
        var out = [UInt8](repeating: 0, count: Int(length))
        _ = out.withUnsafeMutableBufferPointer { b in
            var cursor = b.baseAddress
            return i2d_ECDSA_SIG(sig, &cursor)
        }
        return out
    }
}
