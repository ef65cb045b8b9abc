import COpenSSL

/// Base64 and base64url (RFC 4648 §5, unpadded) through OpenSSL's EVP encoder, for JWTs and PEM-free keys.
///
/// ```swift
/// Base64.urlEncode(Array("hi".utf8))   // "aGk"
/// Base64.urlDecode("aGk")              // [104, 105]
/// ```
public enum Base64 {
    public static func encode(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        var out = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let n = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { i in EVP_EncodeBlock(o.baseAddress, i.baseAddress, Int32(i.count)) }
        }
        return String(decoding: out[0..<Int(max(0, n))], as: UTF8.self)
    }

    /// Standard base64 with padding; nil when the text is not base64.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard !input.isEmpty else { return [] }
        guard input.count % 4 == 0 else { return nil }
        var out = [UInt8](repeating: 0, count: input.count / 4 * 3)
        let n = out.withUnsafeMutableBufferPointer { o in
            input.withUnsafeBufferPointer { i in EVP_DecodeBlock(o.baseAddress, i.baseAddress, Int32(i.count)) }
        }
        guard n >= 0 else { return nil }
        // EVP_DecodeBlock counts padding as zero bytes: drop one per '='.
        let padding = input.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        guard padding <= 2 else { return nil }
        return Array(out[0..<(Int(n) - padding)])
    }

    public static func urlEncode(_ bytes: [UInt8]) -> String {
        var text = Array(encode(bytes).utf8)
        while text.last == UInt8(ascii: "=") { text.removeLast() }
        for i in text.indices {
            if text[i] == UInt8(ascii: "+") {
                text[i] = UInt8(ascii: "-")
            } else if text[i] == UInt8(ascii: "/") {
                text[i] = UInt8(ascii: "_")
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Unpadded base64url (padding tolerated); nil on any character outside the alphabet.
    public static func urlDecode(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 3)
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
            case UInt8(ascii: "="): continue
            default: bytes.append(c)
            }
        }
        if bytes.count % 4 == 1 { return nil }
        while bytes.count % 4 != 0 { bytes.append(UInt8(ascii: "=")) }
        return decode(String(decoding: bytes, as: UTF8.self))
    }
}
