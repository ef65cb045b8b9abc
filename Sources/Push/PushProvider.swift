import ReleaseControl

/// The two push services Lerix speaks to: Apple's APNs (ios and macos tokens) and
/// Firebase Cloud Messaging v1 (android tokens).
public enum PushProvider: String, Sendable, Hashable, CaseIterable {
    case apns
    case fcm

    /// The provider serving a platform's tokens, or nil for platforms without push (web).
    public static func serving(platform: String) -> PushProvider? {
        Platform(rawValue: platform).flatMap(serving)
    }

    /// ``serving(platform:)`` for a known platform, without comparing names.
    public static func serving(_ platform: Platform) -> PushProvider? {
        switch platform {
        case .ios, .macos: return .apns
        case .android: return .fcm
        case .web: return nil
        }
    }
}
