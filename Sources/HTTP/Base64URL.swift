/// Base64url (RFC 4648 §5) without padding, pure Swift: the one encoder and decoder of the
/// package, for an `HTTP2-Settings` header and for JWT segments. Callers differ in what they
/// forgive, so the decoder takes a ``Strictness``.
///
/// ```swift
/// Base64URL.encode(Array("hi".utf8))   // "aGk"
/// Base64URL.decode("aGk", .strict)      // [104, 105]
/// Base64URL.decode("aGk=", .strict)     // nil: a JWS segment has no padding
/// Base64URL.decode("aGk=", .lenient)    // [104, 105]
/// ```
public enum Base64URL {
    public enum Strictness: Sendable {
        /// A JWS/JWT segment (RFC 7515 §2): the URL-safe alphabet only, no `=` padding, no white
        /// space, and never a length no encoder makes (one character past a whole group).
        case strict
        /// An `HTTP2-Settings` header (RFC 9113 §3.2.1 of RFC 7540): base64url without padding
        /// is what a client sends, but the standard alphabet's `+` and `/` are read too, and `=`,
        /// spaces and tabs are skipped wherever they stand; bits short of a byte are dropped.
        case lenient
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` in base64url without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int(group >> UInt32(shift) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var group = UInt32(bytes[index]) << 16
            if rest == 2 { group |= UInt32(bytes[index + 1]) << 8 }
            for shift in [18, 12, 6].prefix(rest + 1) { out.append(alphabet[Int(group >> UInt32(shift) & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil when it is not base64url as `strictness` reads it.
    public static func decode(_ text: some StringProtocol, _ strictness: Strictness) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        var digits = 0
        for c in text.utf8 {
            let value: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "+") where strictness == .lenient: value = 62
            case UInt8(ascii: "/") where strictness == .lenient: value = 63
            case UInt8(ascii: "="), UInt8(ascii: " "), UInt8(ascii: "\t"):
                guard strictness == .lenient else { return nil }
                continue
            default: return nil
            }
            digits += 1
            accumulator = (accumulator << 6) | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        if strictness == .strict, digits % 4 == 1 { return nil }
        return out
    }
}
