import Testing

@testable import ReleaseControl

@Suite struct DeviceTests {
    @Test func emptyQueryValuesCountAsAbsent() {
        let d = Device(platform: .ios, version: "", build: "", sdk: "", sdkVersion: "")
        #expect(d.version == nil && d.build == nil && d.sdk == nil && d.sdkVersion == nil)
    }

    @Test func unparsableVersionsCountAsAbsent() {
        let d = Device(platform: .android, version: "latest", build: "7", sdk: "kotlin", sdkVersion: "1.x")
        #expect(d.version == nil)
        #expect(d.sdkVersion == nil)
        #expect(d.build == "7" && d.sdk == "kotlin")
    }
}
