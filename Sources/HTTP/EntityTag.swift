/// ETag formatting and `If-None-Match` matching (RFC 9110 §13.1.2, weak comparison).
///
/// ```swift
/// EntityTag.matches(ifNoneMatch: #"W/"a1", "b2""#, etag: #"W/"b2""#)   // true
/// EntityTag.matches(ifNoneMatch: "*", etag: #"W/"b2""#)                 // true
/// ```
public enum EntityTag {
    /// `W/"<opaque>"`.
    public static func weak(_ opaque: String) -> String { "W/\"" + opaque + "\"" }

    /// True when `ifNoneMatch` is `*` or lists a tag weakly equal to `etag`: the `W/`
    /// prefixes are ignored and the quoted parts compared. The list is comma-separated
    /// with optional white space; commas inside quotes do not split; unquoted members
    /// (from sloppy clients) are compared as they stand. Runs on the check's hot path,
    /// so it scans bytes and allocates nothing for native strings.
    public static func matches(ifNoneMatch: String, etag: String) -> Bool {
        if ifNoneMatch == etag { return true }
        var header = ifNoneMatch
        var tag = etag
        return header.withUTF8 { h in
            tag.withUTF8 { t in matches(header: h, etag: t) }
        }
    }

    static func matches(header h: UnsafeBufferPointer<UInt8>, etag t: UnsafeBufferPointer<UInt8>) -> Bool {
        let wanted = opaqueRange(t, 0, t.count)
        var i = 0
        let n = h.count
        while i < n {
            // Skip separators and white space before a member.
            while i < n, h[i] == 0x2C || isSpace(h[i]) { i += 1 }
            guard i < n else { break }
            let start = i
            var inQuotes = false
            while i < n {
                if h[i] == 0x22 { inQuotes.toggle() }
                if h[i] == 0x2C, !inQuotes { break }
                i += 1
            }
            var end = i
            while end > start, isSpace(h[end - 1]) { end -= 1 }
            if end - start == 1, h[start] == UInt8(ascii: "*") { return true }
            let member = opaqueRange(h, start, end)
            if member.count == wanted.count,
                zip(member, wanted).allSatisfy({ h[$0] == t[$1] })
            {
                return true
            }
        }
        return false
    }

    /// The range of the opaque part of the tag in `b[start..<end]`: without surrounding white
    /// space, a `W/` prefix and the surrounding quotes.
    static func opaqueRange(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Range<Int> {
        var s = start
        var e = end
        while s < e, isSpace(b[s]) { s += 1 }
        while e > s, isSpace(b[e - 1]) { e -= 1 }
        if e - s >= 2, b[s] == UInt8(ascii: "W") || b[s] == UInt8(ascii: "w"), b[s + 1] == UInt8(ascii: "/") { s += 2 }
        if e - s >= 2, b[s] == 0x22, b[e - 1] == 0x22 {
            s += 1
            e -= 1
        }
        return s..<e
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
}
