/// RFC 3339 in UTC with milliseconds, as the wire contract writes every time.
/// Civil-date arithmetic after Howard Hinnant's `days_from_civil`, so no Foundation is needed.
extension Instant {
    /// `2026-12-02T11:00:00.000Z`. Written digit by digit into a fixed buffer: every check's
    /// answer carries one, so this sits on the server's hot path.
    public var rfc3339: String {
        let (secondsTotal, milli) = millisecondsSinceEpoch.floorDivided(by: 1000)
        let (days, secondOfDay) = secondsTotal.floorDivided(by: 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        guard (0...9999).contains(year) else { return Self.widePaddedRFC3339(year, month, day, secondOfDay, milli) }
        return String(unsafeUninitializedCapacity: 24) { buffer in
            Self.putRFC3339(year, month, day, secondOfDay, milli, in: buffer)
            return 24
        }
    }

    /// Appends ``rfc3339``'s bytes to `out` without making a String (24 bytes is past a small
    /// String's inline storage, so ``rfc3339`` allocates): a durable state file writes one per
    /// token registration.
    public func writeRFC3339(into out: inout [UInt8]) {
        let (secondsTotal, milli) = millisecondsSinceEpoch.floorDivided(by: 1000)
        let (days, secondOfDay) = secondsTotal.floorDivided(by: 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        guard (0...9999).contains(year) else {
            out.append(contentsOf: Self.widePaddedRFC3339(year, month, day, secondOfDay, milli).utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            Self.putRFC3339(year, month, day, secondOfDay, milli, in: buffer)
            out.append(contentsOf: UnsafeBufferPointer(buffer))
        }
    }

    /// The 24 bytes of a four-digit-year time, `2026-12-02T11:00:00.000Z`, at the start of `buffer`.
    private static func putRFC3339(
        _ year: Int64,
        _ month: Int64,
        _ day: Int64,
        _ secondOfDay: Int64,
        _ milli: Int64,
        in buffer: UnsafeMutableBufferPointer<UInt8>
    ) {
        func put(_ value: Int64, _ width: Int, at offset: Int) { Self.putDigits(value, width, at: offset, in: buffer) }
        put(year, 4, at: 0)
        buffer[4] = 45
        put(month, 2, at: 5)
        buffer[7] = 45
        put(day, 2, at: 8)
        buffer[10] = 84
        put(secondOfDay / 3600, 2, at: 11)
        buffer[13] = 58
        put(secondOfDay % 3600 / 60, 2, at: 14)
        buffer[16] = 58
        put(secondOfDay % 60, 2, at: 17)
        buffer[19] = 46
        put(milli, 3, at: 20)
        buffer[23] = 90
    }

    /// Writes `value` as `width` decimal digits (zero-padded) at `offset`: the fixed-width
    /// fields of RFC 3339 and IMF-fixdate.
    static func putDigits(_ value: Int64, _ width: Int, at offset: Int, in buffer: UnsafeMutableBufferPointer<UInt8>) {
        var v = value
        for i in stride(from: offset + width - 1, through: offset, by: -1) {
            buffer[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
            v /= 10
        }
    }

    /// The instants RFC 3339 writes with a four-digit year (0000-01-01 to 9999-12-31 UTC): the
    /// only ones the wire carries, so inputs outside them are refused.
    public static let rfc3339Range =
        Instant(millisecondsSinceEpoch: -62_167_219_200_000)...Instant(millisecondsSinceEpoch: 253_402_300_799_999)

    /// Years outside 0...9999 (never on the wire, but formatting must not trap).
    static func widePaddedRFC3339(
        _ year: Int64,
        _ month: Int64,
        _ day: Int64,
        _ secondOfDay: Int64,
        _ milli: Int64
    ) -> String {
        var out = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        out += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2)
        return out + "." + pad(milli, 3) + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `t`, `z` and a space for `T` are accepted.
    /// Returns nil for anything else, including out-of-range fields and instants outside
    /// ``rfc3339Range`` (which ``rfc3339`` could not write with four digits).
    public init?(rfc3339 text: String) {
        var text = text
        // Read in place: every answer's server time comes through here, on each device's check.
        guard let instant = text.withUTF8(Self.parseRFC3339) else { return nil }
        self = instant
    }

    /// ``init(rfc3339:)`` on text's UTF-8 bytes, for a reader that has them without a String.
    public init?(rfc3339Bytes bytes: UnsafeBufferPointer<UInt8>) {
        guard let instant = Self.parseRFC3339(bytes) else { return nil }
        self = instant
    }

    private static func parseRFC3339(_ b: UnsafeBufferPointer<UInt8>) -> Instant? {
        if b.count == 24, let instant = parseCanonicalRFC3339(b) { return instant }
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8, or other: UInt8? = nil, or third: UInt8? = nil) -> Bool {
            guard i < b.count, b[i] == c || b[i] == other || b[i] == third else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2),
            expect(84, or: 116, or: 32), let hour = digits(2), expect(58), let minute = digits(2), expect(58),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var milli: Int64 = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var scale: Int64 = 100
            var count = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                milli += Int64(b[i] - 48) * scale
                scale /= 10
                i += 1
                count += 1
            }
            guard count > 0 else { return nil }
        }
        var offsetSeconds: Int64 = 0
        guard i < b.count else { return nil }
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            let sign: Int64 = b[i] == 45 ? -1 : 1
            i += 1
            guard let oh = digits(2), expect(58), let om = digits(2), oh < 24, om < 60 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        let secs = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetSeconds
        let instant = Instant(millisecondsSinceEpoch: secs * 1000 + milli)
        // An offset can carry 0000-01-01 or 9999-12-31 past what the wire can write back.
        guard Self.rfc3339Range.contains(instant) else { return nil }
        return instant
    }

    /// The form ``rfc3339`` writes, `2026-12-02T11:00:00.000Z` (24 bytes): every answer's server
    /// time, read by each device at every check, in straight-line code. Nil for anything else,
    /// which the general parser then reads (or refuses).
    private static func parseCanonicalRFC3339(_ b: UnsafeBufferPointer<UInt8>) -> Instant? {
        guard b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b[19] == 46, b[23] == 90 else {
            return nil
        }
        // Two digits at `at` as a number, or nil (a byte below "0" wraps past 9).
        @inline(__always) func pair(_ at: Int) -> Int64? {
            let tens = b[at] &- 48
            let ones = b[at + 1] &- 48
            guard tens <= 9, ones <= 9 else { return nil }
            return Int64(tens &* 10 &+ ones)
        }
        guard let century = pair(0), let yearOfCentury = pair(2), let month = pair(5), let day = pair(8),
            let hour = pair(11), let minute = pair(14), let second = pair(17), let centis = pair(20),
            b[22] &- 48 <= 9
        else { return nil }
        let year = century * 100 + yearOfCentury
        let milli = centis * 10 + Int64(b[22] &- 48)
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 61
        else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        let secs = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)
        return Instant(millisecondsSinceEpoch: secs * 1000 + milli)
    }

    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

extension Int64 {
    /// Floor division and the non-negative remainder, so times before 1970 format correctly.
    func floorDivided(by d: Int64) -> (Int64, Int64) {
        let q = self / d
        let r = self % d
        return r < 0 ? (q - 1, r + d) : (q, r)
    }
}
