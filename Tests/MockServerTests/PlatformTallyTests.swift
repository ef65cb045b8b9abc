import Clock
import ReleaseControl
import Testing

@testable import MockServer

/// A push's tokens counted by platform, as its record and the server's log line say them.
@Suite struct PlatformTallyTests {
    static let targets = [
        PushTarget(token: "a", platform: .ios), PushTarget(token: "b", platform: .android),
        PushTarget(token: "c", platform: .ios), PushTarget(token: "d", platform: .macos),
        PushTarget(token: "e", platform: .ios),
    ]

    @Test func everyPlatformIsCountedApart() {
        let tally = PlatformTally(Self.targets)
        #expect(tally[.ios] == 3)
        #expect(tally[.android] == 1)
        #expect(tally[.macos] == 1)
        #expect(tally[.web] == 0)
        #expect(PlatformTally([])[.ios] == 0)
    }

    @Test func aPushRecordListsThePlatformsItReaches() {
        let record = PushRecord(id: 1, sentAt: Instant(millisecondsSinceEpoch: 0), changes: [], targets: Self.targets)
        let counts = record.platformCounts.map { "\($0.platform.rawValue)=\($0.count)" }
        #expect(counts.sorted() == ["android=1", "ios=3", "macos=1"])
        let onlyAndroid = PushRecord(
            id: 2,
            sentAt: Instant(millisecondsSinceEpoch: 0),
            changes: [],
            targets: [Self.targets[1]]
        )
        #expect(onlyAndroid.platformCounts.map(\.platform) == [.android])
    }
}
