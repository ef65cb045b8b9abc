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

    @Test func evaluationClassDropsOnlyTheBuild() {
        let a = Device(platform: .ios, version: "2.0", build: "100", sdk: "swift", sdkVersion: "1.0")
        let b = Device(platform: .ios, version: "2.0.0", build: "101", sdk: "swift", sdkVersion: "1.0.0")
        #expect(a != b)
        #expect(a.evaluationClass == b.evaluationClass)
        #expect(a.evaluationClass.build == nil)
        #expect(
            a.evaluationClass != Device(platform: .macos, version: "2.0", build: nil, sdk: "swift", sdkVersion: "1.0")
        )
    }
}
