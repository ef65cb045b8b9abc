import Clock

/// Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an IMF-fixdate.
enum RetryAfter {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Milliseconds to wait from `now`, never negative; nil when the value is neither form.
    static func milliseconds(_ value: String, now: Instant) -> Int64? {
        let text = value.trimmingSpaces()
        if let seconds = Int64(text) {
            return seconds >= 0 && seconds < 1_000_000_000 ? seconds * 1000 : nil
        }
        guard let date = imfFixdate(text) else { return nil }
        return max(0, date.milliseconds(since: now))
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    static func imfFixdate(_ text: String) -> Instant? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int64(parts[1]), let month = months.firstIndex(of: String(parts[2])), let year = Int64(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let h = Int64(clock[0]), let m = Int64(clock[1]), let s = Int64(clock[2]),
            (1...31).contains(day), (0..<24).contains(h), (0..<60).contains(m), (0..<61).contains(s)
        else { return nil }
        let rfc =
            "\(pad(year, 4))-\(pad(Int64(month + 1), 2))-\(pad(day, 2))T\(pad(h, 2)):\(pad(m, 2)):\(pad(min(s, 59), 2))Z"
        return Instant(rfc3339: rfc)
    }

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
