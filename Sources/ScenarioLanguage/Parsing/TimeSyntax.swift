/// Durations as scenario files write them: `90s`, `5m`, `2h`, `7d`, `1h30m`, `250ms`, or a bare
/// number of seconds; with a sign (`-2h`) for relative times and clock offsets.
package enum TimeSyntax {
    /// Milliseconds, or nil when `text` is not a duration.
    package static func milliseconds(_ text: String) -> Int64? {
        var s = Substring(text.trimmingSpaces())
        var sign: Int64 = 1
        if s.first == "+" {
            s = s.dropFirst()
        } else if s.first == "-" {
            sign = -1
            s = s.dropFirst()
        }
        guard !s.isEmpty else { return nil }
        if let n = Int64(s) { return sign * n * 1000 }
        var total: Int64 = 0
        var number: Int64? = nil
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if let d = c.wholeNumberValue, c.isASCII {
                number = (number ?? 0) &* 10 &+ Int64(d)
                i = s.index(after: i)
                continue
            }
            guard let n = number else { return nil }
            var unit = String(c)
            let next = s.index(after: i)
            if c == "m", next < s.endIndex, s[next] == "s" {
                unit = "ms"
                i = next
            }
            let scale: Int64
            switch unit {
            case "ms": scale = 1
            case "s": scale = 1000
            case "m": scale = 60_000
            case "h": scale = 3_600_000
            case "d": scale = 86_400_000
            case "w": scale = 7 * 86_400_000
            default: return nil
            }
            total &+= n &* scale
            number = nil
            i = s.index(after: i)
        }
        guard number == nil, total <= 366 * 86_400_000 else { return nil }
        return sign * total
    }

    /// `+1h05m00s`-style text for virtual time since time 0, as the runner prints it.
    package static func relative(_ ms: Int64) -> String {
        let sign = ms < 0 ? "-" : "+"
        var rest = abs(ms)
        let days = rest / 86_400_000
        rest %= 86_400_000
        let h = rest / 3_600_000
        rest %= 3_600_000
        let m = rest / 60_000
        rest %= 60_000
        let s = rest / 1000
        let milli = rest % 1000
        var out = sign
        if days > 0 { out += "\(days)d" }
        out += pad(h) + "h" + pad(m) + "m" + pad(s) + "s"
        if milli > 0 { out += "." + String(String(milli + 1000).dropFirst()) }
        return out
    }

    private static func pad(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
}

extension String {
    package func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
