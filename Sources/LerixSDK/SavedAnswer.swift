package import Clock
package import JSON

/// What the SDK keeps on the device between launches: the last answer, part by part, what it
/// needs to judge its freshness and the device clock, the user's Skips and the queued items.
///
/// Times named `…At` without "server" are device-clock instants.
package struct SavedAnswer: Equatable, Sendable {
    package var requiredUpdate: RequiredUpdate?
    package var optionalUpdate: OptionalUpdate?
    package var maintenance: [MaintenanceWindow] = []
    package var sdkSwitches: [SDKSwitch] = []
    /// The ETag to send as `If-None-Match`; nil when the saved parts do not all come from it.
    package var etag: String?
    /// Seconds the answer stays fresh after ``receivedAt``.
    package var lifetime: Int = SavedAnswer.defaultLifetime
    /// Server time minus device time at the last answer, in milliseconds.
    package var serverOffsetMilliseconds: Int64 = 0
    /// When the answer was last received or renewed by a 304 (device clock).
    package var receivedAt: Instant?
    /// When a check last succeeded (device clock); the optional update lives 7 days past it.
    package var lastSuccess: Instant?
    /// The app version and build the saved updates were answered for.
    package var appVersion: String?
    package var build: String?
    /// Rules whose optional prompt the user skipped for good.
    package var skippedRules: [String] = []
    /// Items waiting to be sent, per module, oldest first.
    package var queue: [LerixModule: [JSON]] = [:]

    /// The lifetime assumed before any answer told otherwise.
    package static let defaultLifetime = 300

    package init() {}

    /// Server time as this device best knows it.
    package func serverTime(at deviceNow: Instant) -> Instant {
        deviceNow.adding(milliseconds: serverOffsetMilliseconds)
    }

    /// The device-clock instant at which the server's clock reads `serverInstant`.
    package func deviceTime(atServerTime serverInstant: Instant) -> Instant {
        serverInstant.adding(milliseconds: -serverOffsetMilliseconds)
    }

    /// Whether the answer is older than its lifetime (or there is none). A receipt in the
    /// device's future is stale too: the clock was set back since, by an unknown amount.
    package func isStale(at deviceNow: Instant) -> Bool {
        guard isPossibleReading(receivedAt, at: deviceNow), let receivedAt else { return true }
        return deviceNow.milliseconds(since: receivedAt) >= Int64(lifetime) * 1000
    }

    /// Whether an age measured from device-clock `reading` to `deviceNow` can be right. A
    /// reading in the device's future means the clock was set back since then by an unknown
    /// amount: no age measured from it may make anything look fresh.
    package func isPossibleReading(_ reading: Instant?, at deviceNow: Instant) -> Bool {
        guard let reading else { return false }
        return reading <= deviceNow
    }

    /// Whether the saved updates were answered for this app version and build.
    package func updatesBelong(toVersion version: String?, build: String?) -> Bool {
        (appVersion ?? "") == (version ?? "") && (self.build ?? "") == (build ?? "")
    }
}
