/// A device platform as the check's `platform` parameter and a rule's `platforms` name it.
///
/// The one list of platforms on the server's side: the OpenAPI document, the endpoint docs and
/// every message that names the valid values are made from `allCases` (LerixSDK, a product of its
/// own, keeps the same names in its own `Platform`; a test holds the two equal).
public enum Platform: String, CaseIterable, Sendable, Hashable {
    case ios, android, macos, web

    /// `ios, android, macos, web`, for error messages.
    public static var listText: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Whether apps of this platform receive silent pushes (web pages do not).
    public var receivesPush: Bool { self != .web }

    /// The platforms pushes go to, in the vocabulary's order: `ios`, `android`, `macos`.
    public static let pushPlatforms = allCases.filter(\.receivesPush)

    /// `ios, android or macos`, for error messages about push tokens.
    public static var pushListText: String {
        let names = pushPlatforms.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }
}

extension Platform {
    /// A rule's platform list matches: nil means every platform.
    static func list(_ platforms: [Platform]?, contains platform: Platform) -> Bool {
        platforms?.contains(platform) ?? true
    }
}
