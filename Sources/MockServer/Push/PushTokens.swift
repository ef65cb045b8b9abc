import ReleaseControl

/// The rules a push token and its platform follow, shared by registration and config files.
enum PushTokens {
    /// Real tokens are 64 (APNs) to about 200 (FCM) characters. 512 keeps the longest token,
    /// percent-encoded in a URL, well inside the 8 KiB request target.
    static let maximumLength = 512

    /// Why `token` cannot be a push token, or nil when it can.
    static func problem(token: String) -> String? {
        if token.isEmpty { return "must not be empty" }
        // Counted in Unicode scalars, as JSON Schema's maxLength counts, so the document can say it.
        // A scalar is at least one byte, so only a token of more bytes than that needs counting
        // (the bytes' count is free; the scalars' decodes the whole token).
        if token.utf8.count > maximumLength, token.unicodeScalars.count > maximumLength {
            return "longer than \(maximumLength) characters"
        }
        return Identifier.problem(token)
    }

    enum PlatformResult {
        case success(Platform)
        case failure(String)
    }

    /// A push platform from its name; web is refused because it has no push.
    static func platform(_ name: String) -> PlatformResult {
        guard let platform = Platform(rawValue: name) else {
            return .failure("unknown platform \"\(name)\"; expected \(Platform.pushListText)")
        }
        if !platform.receivesPush { return .failure("\(name) has no push; expected \(Platform.pushListText)") }
        return .success(platform)
    }
}
