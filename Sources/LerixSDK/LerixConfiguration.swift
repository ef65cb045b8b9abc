import Foundation

/// How an app sets up the release control part of the Lerix SDK.
///
/// Everything the server needs to evaluate rules for this device travels in the check's
/// query; nothing here is secret.
///
/// ```swift
/// let configuration = LerixConfiguration(
///     baseURL: URL(string: "https://api.lerix.dev")!, project: "demo",
///     platform: .ios, appVersion: "2.3.0", build: "41")
/// let lerix = Lerix(configuration: configuration, storage: try FileStorage(folder: folder))
/// lerix.start()
/// ```
public struct LerixConfiguration: Equatable, Sendable {
    /// Where the Lerix API lives (`http://127.0.0.1:8080`); a trailing slash is ignored.
    public var baseURL: URL {
        get { URL(string: base) ?? URL(fileURLWithPath: "/") }
        set { base = Self.trimmed(newValue.absoluteString) }
    }
    /// ``baseURL`` as the requests spell it, without a trailing slash.
    package var base: String
    /// The project's key in Lerix.
    public var project: String
    /// The platform the app runs on (the check's `platform`).
    public var platform: Platform
    /// The SDK flavor: native or the Flutter plugin (Flutter applies deadlines offline).
    public var flavor: Flavor
    /// The installed app's version; nil or empty for a device that has none (never blocked).
    public var appVersion: String?
    /// The installed app's build; a new build drops the saved update like a new version.
    public var build: String?
    /// The SDK's own name and version, which SDK switches match on; nil sends none (an
    /// emulated device without them: a version-bounded switch then never matches it).
    public var sdkName: String?
    /// This SDK's version as sent (`sdk_version`); see ``sdkName``.
    public var sdkVersion: String?
    /// `false` turns release control off: no checks; a saved SDK switch still applies.
    public var enabled: Bool
    /// This device's Lerix push token, registered at start unless a switch pauses it.
    public var pushToken: String?

    /// Release control for `project` on the Lerix API at `baseURL`.
    public init(
        baseURL: URL,
        project: String,
        platform: Platform,
        flavor: Flavor = .native,
        appVersion: String? = nil,
        build: String? = nil,
        sdkName: String? = "swift",
        sdkVersion: String? = LerixConfiguration.currentSDKVersion,
        enabled: Bool = true,
        pushToken: String? = nil
    ) {
        self.base = Self.trimmed(baseURL.absoluteString)
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

    private static func trimmed(_ text: String) -> String {
        var base = text
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }

    /// The version of this SDK, sent as `sdk_version` unless overridden.
    public static let currentSDKVersion = "1.0.0"

    /// Whether the app reports a version at all; update rules never block a device without one.
    public var hasVersion: Bool { !(appVersion ?? "").isEmpty }

    /// Android apps and every Flutter app turn a recommended update into a required one
    /// offline once its deadline passes, as the server would have answered.
    public var appliesDeadlinesOffline: Bool { platform == .android || flavor == .flutter }

    /// Whether the platform receives silent pushes at all (web pages do not).
    public var supportsPush: Bool { platform.receivesPush }
}

/// The platform the app runs on, as the check's `platform` parameter spells it.
public enum Platform: String, CaseIterable, Sendable {
    /// iOS and iPadOS (silent pushes through APNs).
    case ios
    /// Android (silent pushes through FCM; deadlines pass offline).
    case android
    /// macOS (silent pushes through APNs).
    case macos
    /// A web page: no silent pushes; back online and a visible tab check a stale answer.
    case web

    /// Whether apps of this platform receive silent pushes (web pages do not).
    public var receivesPush: Bool { self != .web }
}

/// Which SDK flavor the app uses: the platform's own, or the Flutter plugin.
public enum Flavor: String, CaseIterable, Sendable {
    /// The platform's own SDK.
    case native
    /// The Flutter plugin (deadlines pass offline on every platform).
    case flutter
}
