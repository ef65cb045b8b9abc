import Clock

/// The `Date` value (RFC 9110 §6.6.1) for responses leaving one event loop, formatted once
/// per second of the server's clock and reused until that second changes.
///
/// Confined to its loop's queue, so it needs no lock and every loop has its own.
///
/// ```swift
/// let dates = DateField(clock: SystemClock())
/// response.headers.set("Date", dates.current())   // "Thu, 03 Dec 2026 08:36:20 GMT"
/// ```
final class DateField: @unchecked Sendable {
    private let clock: any InstantSource
    private var second = Int64.min
    private var value = ""

    init(clock: any InstantSource) {
        self.clock = clock
    }

    /// The clock's current second as IMF-fixdate.
    func current() -> String {
        let now = clock.now
        if now.secondsSinceEpoch != second {
            second = now.secondsSinceEpoch
            value = now.httpDate
        }
        return value
    }
}
