import Clock
import JSON

/// A maintenance window in server time. The app blocks from `startsAt` until ``effectiveEnd``.
public struct MaintenanceWindow: Equatable, Sendable {
    /// No window runs longer than this on the client, whatever the answer says.
    public static let maximumDurationSeconds: Int64 = 7 * 86_400

    public var rule: String
    public var startsAt: Instant
    public var endsAt: Instant
    public var message: String?

    public init(rule: String, startsAt: Instant, endsAt: Instant, message: String? = nil) {
        self.rule = rule
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.message = message
    }

    /// Reads one element of the answer's `maintenance` array; nil when it is not an object with
    /// valid `starts_at` and `ends_at` times.
    public init?(json: JSON) {
        guard let object = json.objectValue,
              let start = object["starts_at"]?.stringValue.flatMap({ Instant(rfc3339: $0) }),
              let end = object["ends_at"]?.stringValue.flatMap({ Instant(rfc3339: $0) })
        else { return nil }
        self.init(rule: object["rule"]?.stringValue ?? "", startsAt: start, endsAt: end,
                  message: object["message"]?.stringValue)
    }

    /// The end the client honours: `endsAt`, but never more than 7 days after the start.
    public var effectiveEnd: Instant {
        min(endsAt, startsAt.adding(seconds: Self.maximumDurationSeconds))
    }

    /// Whether the window blocks at `serverNow` (the device clock corrected by the server's time).
    public func isActive(at serverNow: Instant) -> Bool {
        startsAt <= serverNow && serverNow < effectiveEnd
    }

    /// The wire shape; `ends_at` is the client's capped end.
    public var json: JSON {
        .object([
            ("rule", .string(rule)), ("starts_at", .string(startsAt.rfc3339)),
            ("ends_at", .string(effectiveEnd.rfc3339)), ("message", message.map(JSON.string) ?? .null),
        ])
    }
}
