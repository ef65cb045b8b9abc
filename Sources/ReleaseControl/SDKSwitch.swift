import Clock

/// A switch that pauses some Lerix SDK modules until `endsAt`.
///
/// ```swift
/// let pause = SDKSwitch(sdks: [SDKMatch(name: "swift", below: Version("1.4.2"))], modules: [.analytics], endsAt: t)
/// pause.matches(Device(platform: .ios, sdk: "swift", sdkVersion: Version("1.4.1")))   // true
/// ```
public struct SDKSwitch: Sendable, Equatable {
    /// nil: every device, whatever SDK it names (or none).
    public var sdks: [SDKMatch]?
    /// Never empty; duplicates removed, order kept.
    public var modules: [SDKModule]
    public var endsAt: Instant

    public init(sdks: [SDKMatch]? = nil, modules: [SDKModule], endsAt: Instant) {
        self.sdks = sdks
        self.modules = modules
        self.endsAt = endsAt
    }
}
