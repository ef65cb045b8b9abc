/// Spans a test of app life speaks in: `try await mock.advance(by: .days(7))`.
extension Duration {
    /// `n` days of 86,400 s (true time has no daylight saving).
    public static func days(_ n: Int) -> Duration { .seconds(n * 86_400) }

    /// `n` hours.
    public static func hours(_ n: Int) -> Duration { .seconds(n * 3_600) }

    /// `n` minutes.
    public static func minutes(_ n: Int) -> Duration { .seconds(n * 60) }
}
