import Clock
import JSON
import TestSupport

@testable import ReleaseControl

/// Shared helpers: a fixed start time and terse builders for bodies and devices.
enum Fixture {
    static let t0 = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    static func at(_ seconds: Int64) -> Instant { t0.adding(seconds: seconds) }

    static func json(_ text: String) -> JSON {
        (try? JSON.parse(text)) ?? .string("unparsable fixture: \(text)")
    }

    static func device(
        _ platform: Platform = .ios,
        _ version: String? = nil,
        sdk: String? = nil,
        sdkVersion: String? = nil
    ) -> Device {
        Device(platform: platform, version: version, build: nil, sdk: sdk, sdkVersion: sdkVersion)
    }

    static func time(_ seconds: Int64) -> String { at(seconds).rfc3339 }

    /// A project with these rule bodies (JSON texts) seeded, so no change is recorded.
    static func project(_ bodies: [String]) throws -> ProjectState {
        var seeds: [RuleBody] = []
        for text in bodies { seeds.append(try RuleBody.decode(json(text))) }
        return ProjectState(key: "demo", seedRules: seeds)
    }
}

extension Evaluation {
    var requiredRule: String? { requiredUpdate?.rule }
    var optionalRule: String? { optionalUpdate?.rule }
    var maintenanceRules: [String] { maintenance.map(\.rule) }
    var switchRules: [String] { sdkSwitches.map(\.rule) }
    /// The state as the wire shows it (TestSupport's reference JSON).
    var state: JSON { referenceState }

    /// What the device sees is the same (time apart): what a cached answer must keep.
    func decidesLike(_ other: Evaluation) -> Bool {
        requiredUpdate == other.requiredUpdate && optionalUpdate == other.optionalUpdate
            && maintenance == other.maintenance && sdkSwitches == other.sdkSwitches && lifetime == other.lifetime
    }
}
