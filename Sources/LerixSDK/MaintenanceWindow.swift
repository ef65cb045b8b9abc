package import Clock
import Foundation
package import JSON

/// A maintenance window in server time. The app blocks from ``startsAt`` until
/// ``effectiveEndsAt``, judged by the device clock corrected by the server's time.
///
/// ```swift
/// if let window = lerix.state.activeMaintenance {
///     showMaintenance(message: window.message, until: window.effectiveEndsAt)
/// }
/// ```
public struct MaintenanceWindow: Equatable, Sendable {
    /// No window runs longer than this on the client, whatever the answer says.
    public static let maximumDuration = Duration.seconds(maximumDurationSeconds)
    package static let maximumDurationSeconds: Int64 = 7 * 86_400

    /// The server's rule id.
    public var rule: String
    package var start: Instant
    package var end: Instant
    /// Text for the maintenance screen, when the rule has one.
    public var message: String?

    /// A window from `startsAt` to `endsAt` (server time).
    public init(rule: String, startsAt: Date, endsAt: Date, message: String? = nil) {
        self.init(rule: rule, start: Instant(startsAt), end: Instant(endsAt), message: message)
    }

    package init(rule: String, start: Instant, end: Instant, message: String? = nil) {
        self.rule = rule
        self.start = start
        self.end = end
        self.message = message
    }

    /// When the window starts (server time).
    public var startsAt: Date {
        get { start.date }
        set { start = Instant(newValue) }
    }

    /// When the answer says the window ends (server time).
    public var endsAt: Date {
        get { end.date }
        set { end = Instant(newValue) }
    }

    /// When the app unblocks: ``endsAt``, but never more than 7 days after the start.
    public var effectiveEndsAt: Date { effectiveEnd.date }

    /// Reads one element of the answer's `maintenance` array; nil when it is not an object with
    /// valid `starts_at` and `ends_at` times.
    package init?(json: JSON) {
        guard let object = json.objectValue,
            let start = object["starts_at"]?.stringValue.flatMap({ Instant(rfc3339: $0) }),
            let end = object["ends_at"]?.stringValue.flatMap({ Instant(rfc3339: $0) })
        else { return nil }
        self.init(
            rule: object["rule"]?.stringValue ?? "",
            start: start,
            end: end,
            message: object["message"]?.stringValue
        )
    }

    /// The end the client honours: `end`, but never more than 7 days after the start.
    package var effectiveEnd: Instant {
        min(end, start.adding(seconds: Self.maximumDurationSeconds))
    }

    /// Whether the window blocks at `serverNow` (the device clock corrected by the server's time).
    package func isActive(at serverNow: Instant) -> Bool {
        start <= serverNow && serverNow < effectiveEnd
    }

    /// The wire shape; `ends_at` is the client's capped end.
    package var json: JSON {
        .object([
            ("rule", .string(rule)), ("starts_at", .string(start.rfc3339)),
            ("ends_at", .string(effectiveEnd.rfc3339)), ("message", message.map(JSON.string) ?? .null),
        ])
    }
}
