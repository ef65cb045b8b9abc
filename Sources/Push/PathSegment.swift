/// Percent-encoding for one path segment (RFC 3986 unreserved characters pass through).
enum PathSegment {
    static func encode(_ text: String) -> String {
        var copy = text
        let needs = copy.withUTF8 { bytes in
            for b in bytes where !isUnreserved(b) { return true }
            return false
        }
        guard needs else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3)
        for b in text.utf8 {
            if isUnreserved(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// ALPHA, DIGIT, "-", ".", "_", "~": bits of two words, bytes 0-63 and 64-127, so a test
    /// is a shift and a mask, not a chain of range compares (every APNs request's token
    /// passes through here, 64 bytes or more).
    @inline(__always)
    static func isUnreserved(_ b: UInt8) -> Bool {
        let low: UInt64 = 0x03FF_6000_0000_0000  // "-" (45), "." (46), "0"-"9" (48-57)
        let high: UInt64 = 0x47FF_FFFE_87FF_FFFE  // "A"-"Z", "_" (95), "a"-"z", "~" (126)
        return b < 128 && ((b < 64 ? low : high) >> UInt64(b & 63)) & 1 == 1
    }
}
