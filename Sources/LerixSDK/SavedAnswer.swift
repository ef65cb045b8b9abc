import Clock
import JSON

/// What the SDK keeps on the device between launches: the last answer, part by part, what it
/// needs to judge its freshness and the device clock, the user's Skips and the queued items.
///
/// Times named `…At` without "server" are device-clock instants.
public struct SavedAnswer: Equatable, Sendable {
    public var requiredUpdate: RequiredUpdate?
    public var optionalUpdate: OptionalUpdate?
    public var maintenance: [MaintenanceWindow] = []
    public var sdkSwitches: [SDKSwitch] = []
    /// The ETag to send as `If-None-Match`; nil when the saved parts do not all come from it.
    public var etag: String?
    /// Seconds the answer stays fresh after ``receivedAt``.
    public var lifetime: Int = SavedAnswer.defaultLifetime
    /// Server time minus device time at the last answer, in milliseconds.
    public var serverOffsetMilliseconds: Int64 = 0
    /// When the answer was last received or renewed by a 304 (device clock).
    public var receivedAt: Instant?
    /// When a check last succeeded (device clock); the optional update lives 7 days past it.
    public var lastSuccess: Instant?
    /// The app version and build the saved updates were answered for.
    public var appVersion: String?
    public var build: String?
    /// Rules whose optional prompt the user skipped for good.
    public var skippedRules: [String] = []
    /// Items waiting to be sent, per module, oldest first.
    public var queue: [LerixModule: [JSON]] = [:]

    /// The lifetime assumed before any answer told otherwise.
    public static let defaultLifetime = 300

    public init() {}

    /// Server time as this device best knows it.
    public func serverTime(at deviceNow: Instant) -> Instant {
        deviceNow.adding(milliseconds: serverOffsetMilliseconds)
    }

    /// The device-clock instant at which the server's clock reads `serverInstant`.
    public func deviceTime(atServerTime serverInstant: Instant) -> Instant {
        serverInstant.adding(milliseconds: -serverOffsetMilliseconds)
    }

    /// Whether the answer is older than its lifetime (or there is none). A receipt in the
    /// device's future is stale too: the clock was set back since, by an unknown amount.
    public func isStale(at deviceNow: Instant) -> Bool {
        guard isPossibleReading(receivedAt, at: deviceNow), let receivedAt else { return true }
        return deviceNow.milliseconds(since: receivedAt) >= Int64(lifetime) * 1000
    }

    /// Whether an age measured from device-clock `reading` to `deviceNow` can be right. A
    /// reading in the device's future means the clock was set back since then by an unknown
    /// amount: no age measured from it may make anything look fresh.
    public func isPossibleReading(_ reading: Instant?, at deviceNow: Instant) -> Bool {
        guard let reading else { return false }
        return reading <= deviceNow
    }

    /// Whether the saved updates were answered for this app version and build.
    public func updatesBelong(toVersion version: String?, build: String?) -> Bool {
        (appVersion ?? "") == (version ?? "") && (self.build ?? "") == (build ?? "")
    }
}
