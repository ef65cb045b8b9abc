import AdapterProtocol
import JSON
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// Device classes are told apart field by field, and a device may send no `sdk` at all.
@Suite struct DeviceClassTests {
    /// Joined with `|`, `1`,`2|3` and `1|2`,`3` were one timeline class.
    @Test func timelineClassesDoNotMergeOnASeparator() {
        let a = TimelineRecorder.classKey(platform: "ios", version: "1", build: "2|3", sdk: "swift", sdkVersion: nil)
        let b = TimelineRecorder.classKey(platform: "ios", version: "1|2", build: "3", sdk: "swift", sdkVersion: nil)
        #expect(a != b)
        let missing = TimelineRecorder.classKey(platform: "ios", version: "-", build: nil, sdk: nil, sdkVersion: nil)
        let dash = TimelineRecorder.classKey(platform: "ios", version: nil, build: nil, sdk: nil, sdkVersion: nil)
        #expect(missing != dash)
        #expect(
            TimelineRecorder.classKey(
                .object([("platform", "ios"), ("version", "1"), ("build", "2|3"), ("sdk", "swift")])
            ) == a
        )
    }

    /// `sdk: null` is an app that sends no `sdk` (a recording writes it so): it used to replay
    /// as the platform's SDK, `swift`.
    @Test func sdkNullSendsNoSDK() throws {
        let scenario = try Scenario.parse(
            Array(
                "name: n\ndevices:\n  a: {platform: ios, sdk: null}\n  b: {platform: ios}\nsteps:\n  - expect_pushes: {count: 0}\n"
                    .utf8
            ),
            file: "n.yaml"
        )
        let a = try #require(scenario.devices.first { $0.name == "a" })
        let b = try #require(scenario.devices.first { $0.name == "b" })
        #expect(a.sdk == nil && a.config(baseURL: "u", project: "p", storage: "s").sdk == .none)
        #expect(b.sdk == "swift")
        #expect(a.config(baseURL: "u", project: "p", storage: "s").json["sdk"] == .null)
    }
}
