import HTTP

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
                guard let decoded = PercentDecoding.decode(part, plusIsSpace: false) else { return nil }
                result.append(decoded)
            } else {
                result.append(String(decoding: part, as: UTF8.self))
            }
        }
        return result
    }

    /// The segment between `prefix` and `suffix` when the target is exactly `prefix`, one
    /// non-empty segment and `suffix`, with nothing in the segment to decode or split on (no
    /// `/`, `%`, `?`, `#`): what ``segments(_:)`` would read there, without splitting the whole
    /// target. Nil for anything else, which the caller then reads with ``segments(_:)``.
    static func plainSegment(_ target: String, after prefix: StaticString, before suffix: StaticString = "") -> String?
    {
        var target = target
        return target.withUTF8 { t -> String? in
            let p = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            let s = UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
            guard t.count > p.count + s.count else { return nil }
            for i in 0..<p.count where t[i] != p[i] { return nil }
            let end = t.count - s.count
            for i in 0..<s.count where t[end + i] != s[i] { return nil }
            for i in p.count..<end {
                switch t[i] {
                case UInt8(ascii: "/"), UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"): return nil
                default: continue
                }
            }
            return String(decoding: UnsafeBufferPointer(rebasing: t[p.count..<end]), as: UTF8.self)
        }
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
}
