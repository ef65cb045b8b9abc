/// Byte-level reading of a request target for the gateway's hot path: the path's segments
/// without the query, percent-decoded only when a segment holds an escape.
enum RequestTarget {
    /// Segments of the path (empty ones dropped), or nil when an escape is malformed.
    static func segments(_ target: String) -> [String]? {
        var result: [String] = []
        result.reserveCapacity(4)
        var utf8 = target.utf8[...]
        if let q = utf8.firstIndex(of: UInt8(ascii: "?")) { utf8 = utf8[..<q] }
        for part in utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if part.contains(UInt8(ascii: "%")) {
                guard let decoded = decode(part) else { return nil }
                result.append(decoded)
            } else {
                result.append(String(decoding: part, as: UTF8.self))
            }
        }
        return result
    }

    /// True when the target's path starts with `prefix` (bytes compared as sent).
    static func hasPathPrefix(_ target: String, _ prefix: StaticString) -> Bool {
        let p = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        var it = target.utf8.makeIterator()
        for b in p {
            guard let t = it.next(), t == b else { return false }
        }
        return true
    }

    static func decode(_ bytes: Substring.UTF8View.SubSequence) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                let h = bytes.index(after: i)
                guard h < bytes.endIndex else { return nil }
                let l = bytes.index(after: h)
                guard l < bytes.endIndex, let hv = hex(bytes[h]), let lv = hex(bytes[l]) else { return nil }
                out.append(hv << 4 | lv)
                i = bytes.index(after: l)
            } else {
                out.append(b)
                i = bytes.index(after: i)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }
}
