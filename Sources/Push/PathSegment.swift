/// Percent-encoding for one path segment (RFC 3986 unreserved characters pass through).
enum PathSegment {
    static func encode(_ text: String) -> String {
        var copy = text
        let needs = copy.withUTF8 { bytes in bytes.contains { !isUnreserved($0) } }
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

    static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
