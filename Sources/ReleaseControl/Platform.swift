/// A device platform as the check's `platform` parameter and a rule's `platforms` name it.
public enum Platform: String, CaseIterable, Sendable, Hashable {
    case ios, android, macos, web

    /// `ios, android, macos, web`, for error messages.
    public static var listText: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

extension Platform {
    /// A rule's platform list matches: nil means every platform.
    static func list(_ platforms: [Platform]?, contains platform: Platform) -> Bool {
        platforms?.contains(platform) ?? true
    }
}
