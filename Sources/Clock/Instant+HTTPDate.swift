/// The HTTP `Date` format (RFC 9110 §5.6.7, IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
extension Instant {
    /// This instant to the whole second (floored), as IMF-fixdate. Written into a fixed
    /// buffer; servers still format it once per second (see `HTTPServer`'s date field).
    ///
    /// ```swift
    /// Instant(secondsSinceEpoch: 784_111_777).httpDate   // "Sun, 06 Nov 1994 08:49:37 GMT"
    /// ```
    public var httpDate: String {
        let (days, secondOfDay) = secondsSinceEpoch.floorDivided(by: 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        // IMF-fixdate has four year digits; an instant outside them is clamped, never trapped on.
        guard (0...9999).contains(year) else {
            return year < 0 ? "Sat, 01 Jan 0000 00:00:00 GMT" : "Fri, 31 Dec 9999 23:59:59 GMT"
        }
        let weekday = Int((days + 4).floorDivided(by: 7).1)  // 1970-01-01 was a Thursday
        let dayName = Self.dayNames[weekday]
        let monthName = Self.monthNames[Int(month) - 1]
        return String(unsafeUninitializedCapacity: 29) { buffer in
            func put(_ value: Int64, _ width: Int, at offset: Int) {
                Self.putDigits(value, width, at: offset, in: buffer)
            }
            for k in 0..<3 {
                buffer[k] = dayName[k]
                buffer[8 + k] = monthName[k]
            }
            buffer[3] = 44
            buffer[4] = 32
            put(day, 2, at: 5)
            buffer[7] = 32
            buffer[11] = 32
            put(year, 4, at: 12)
            buffer[16] = 32
            put(secondOfDay / 3600, 2, at: 17)
            buffer[19] = 58
            put(secondOfDay % 3600 / 60, 2, at: 20)
            buffer[22] = 58
            put(secondOfDay % 60, 2, at: 23)
            buffer[25] = 32
            buffer[26] = 71
            buffer[27] = 77
            buffer[28] = 84
            return 29
        }
    }

    private static let dayNames: [[UInt8]] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].map { Array($0.utf8) }
    private static let monthNames: [[UInt8]] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .map { Array($0.utf8) }
}
