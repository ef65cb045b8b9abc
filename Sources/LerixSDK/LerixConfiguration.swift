/// How an app sets up the release control part of the Lerix SDK.
///
/// Everything the server needs to evaluate rules for this device travels in the check's
/// query; nothing here is secret.
///
/// ```swift
/// let configuration = LerixConfiguration(
///     baseURL: "https://api.lerix.dev", project: "demo",
///     platform: .ios, appVersion: "2.3.0", build: "41")
/// let lerix = Lerix(configuration: configuration)
/// lerix.start()
/// ```
public struct LerixConfiguration: Equatable, Sendable {
    /// Where the Lerix API lives, without a trailing slash (`http://127.0.0.1:8080`).
    public var baseURL: String
    public var project: String
    public var platform: Platform
    public var flavor: Flavor
    /// The installed app's version; nil or empty for a device that has none (never blocked).
    public var appVersion: String?
    public var build: String?
    /// The SDK's own name and version, which SDK switches match on; nil sends none (an
    /// emulated device without them: a version-bounded switch then never matches it).
    public var sdkName: String?
    public var sdkVersion: String?
    /// `false` turns release control off: no checks; a saved SDK switch still applies.
    public var enabled: Bool
    /// This device's Lerix push token, registered at start unless a switch pauses it.
    public var pushToken: String?

    public init(
        baseURL: String, project: String, platform: Platform, flavor: Flavor = .native,
        appVersion: String? = nil, build: String? = nil,
        sdkName: String? = "swift", sdkVersion: String? = LerixConfiguration.currentSDKVersion,
        enabled: Bool = true, pushToken: String? = nil
    ) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.project = project
        self.platform = platform
        self.flavor = flavor
        self.appVersion = appVersion
        self.build = build
        self.sdkName = sdkName
        self.sdkVersion = sdkVersion
        self.enabled = enabled
        self.pushToken = pushToken
    }

    /// The version of this SDK, sent as `sdk_version` unless overridden.
    public static let currentSDKVersion = "1.0.0"

    /// Whether the app reports a version at all; update rules never block a device without one.
    public var hasVersion: Bool { !(appVersion ?? "").isEmpty }

    /// Android apps and every Flutter app turn a recommended update into a required one
    /// offline once its deadline passes, as the server would have answered.
    public var appliesDeadlinesOffline: Bool { platform == .android || flavor == .flutter }

    /// Whether the platform receives silent pushes at all (web pages do not).
    public var supportsPush: Bool { platform != .web }
}

/// The platform the app runs on, as the check's `platform` parameter spells it.
public enum Platform: String, CaseIterable, Sendable {
    case ios, android, macos, web
}

/// Which SDK flavor the app uses: the platform's own, or the Flutter plugin.
public enum Flavor: String, CaseIterable, Sendable {
    case native, flutter
}
