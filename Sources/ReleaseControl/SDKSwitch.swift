import Clock

/// A switch that pauses some Lerix SDK modules until `endsAt`.
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
