/// The fields shared by required, optional and recommended updates.
///
/// ```swift
/// let update = UpdateRule(platforms: [.ios], below: Version("2.4.0")!, message: "Please update")
/// update.matches(Device(platform: .ios, version: Version("2.3")))   // true
/// ```
public struct UpdateRule: Sendable, Equatable {
    /// nil: every platform.
    public var platforms: [Platform]?
    /// Devices strictly below this version match.
    public var below: Version
    public var storeURL: String?
    public var message: String?

    public init(platforms: [Platform]? = nil, below: Version, storeURL: String? = nil, message: String? = nil) {
        self.platforms = platforms
        self.below = below
        self.storeURL = storeURL
        self.message = message
    }
}
