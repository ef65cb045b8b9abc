/// The device attributes a check carries, as far as evaluation is concerned.
///
/// Built from the query with ``init(platform:version:build:sdk:sdkVersion:)``: an empty
/// value counts as absent, and so does a version that does not parse, so a device
/// sending garbage as its version is treated like one sending none (never blocked by an
/// update rule), and an unparsable `sdk_version` matches no `sdks` entry that has `below`.
///
/// ```swift
/// let device = Device(platform: .ios, version: "2.3.1", build: "412", sdk: "swift", sdkVersion: "1.4.0")
/// ```
public struct Device: Sendable, Hashable {
    public var platform: Platform
    public var version: Version?
    /// Carried for the journal; evaluation ignores it (the check's answer cache keys devices
    /// without it: MockServer's `CheckQuery.Key`).
    public var build: String?
    public var sdk: String?
    public var sdkVersion: Version?

    public init(
        platform: Platform,
        version: Version? = nil,
        build: String? = nil,
        sdk: String? = nil,
        sdkVersion: Version? = nil
    ) {
        self.platform = platform
        self.version = version
        self.build = build
        self.sdk = sdk
        self.sdkVersion = sdkVersion
    }

    /// From query texts: empty means absent, an unparsable version means absent.
    public init(platform: Platform, version: String?, build: String?, sdk: String?, sdkVersion: String?) {
        self.platform = platform
        self.version = Device.nonEmpty(version).flatMap(Version.init)
        self.build = Device.nonEmpty(build)
        self.sdk = Device.nonEmpty(sdk)
        self.sdkVersion = Device.nonEmpty(sdkVersion).flatMap(Version.init)
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
