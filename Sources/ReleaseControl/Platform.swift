/// A device platform as the check's `platform` parameter and a rule's `platforms` name it.
public enum Platform: String, CaseIterable, Sendable, Hashable {
    case ios, android, macos, web

    /// `ios, android, macos, web`, for error messages.
    public static var listText: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
