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
    /// (from sloppy clients) are compared as they stand.
    public static func matches(ifNoneMatch: String, etag: String) -> Bool {
        let wanted = opaque(Substring(etag))
        for member in members(of: ifNoneMatch) {
            if member == "*" { return true }
            if opaque(member) == wanted { return true }
        }
        return false
    }

    /// The comma-separated members, trimmed, empty ones dropped.
    static func members(of list: String) -> [Substring] {
        var result: [Substring] = []
        var inQuotes = false
        var start = list.startIndex
        var i = list.startIndex
        while i < list.endIndex {
            let c = list[i]
            if c == "\"" { inQuotes.toggle() }
            if c == "," && !inQuotes {
                let m = trim(list[start..<i])
                if !m.isEmpty { result.append(m) }
                start = list.index(after: i)
            }
            i = list.index(after: i)
        }
        let last = trim(list[start..<list.endIndex])
        if !last.isEmpty { result.append(last) }
        return result
    }

    /// The tag without `W/` and surrounding quotes.
    static func opaque(_ tag: Substring) -> Substring {
        var t = trim(tag)
        if t.hasPrefix("W/") || t.hasPrefix("w/") { t = t.dropFirst(2) }
        if t.count >= 2, t.first == "\"", t.last == "\"" { t = t.dropFirst().dropLast() }
        return t
    }

    static func trim(_ s: Substring) -> Substring {
        var t = s
        while let f = t.first, f == " " || f == "\t" { t = t.dropFirst() }
        while let l = t.last, l == " " || l == "\t" { t = t.dropLast() }
        return t
    }
}
