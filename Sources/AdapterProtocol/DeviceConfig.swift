import JSON

/// `create`'s `config` (ADAPTER.md), typed. Platform and flavor stay text here: which ones an
/// adapter emulates is its own business (it refuses the others with a reason).
///
/// ```swift
/// let config = DeviceConfig(baseURL: "http://127.0.0.1:8080", project: "demo", platform: "ios", appVersion: "2.3.0")
/// config.json["platform"]   // "ios"
/// ```
public struct DeviceConfig: Sendable, Equatable {
    /// A value that may be left out (the adapter's default) or sent as null (none at all).
    public enum Setting: Sendable, Equatable {
        case absent
        case none
        case value(String)

        init(_ text: String?) { self = text.map(Setting.value) ?? .none }
    }

    public var baseURL: String
    public var project: String
    public var platform: String
    public var flavor: String?
    public var appVersion: String?
    public var build: String?
    public var sdk: Setting
    public var sdkVersion: Setting
    /// A folder that survives `terminate`; nil: memory only.
    public var storage: String?
    public var pushToken: String?
    public var enabled: Bool
    public var clockOffsetSeconds: Double

    public init(
        baseURL: String,
        project: String,
        platform: String,
        flavor: String? = nil,
        appVersion: String? = nil,
        build: String? = nil,
        sdk: Setting = .absent,
        sdkVersion: Setting = .absent,
        storage: String? = nil,
        pushToken: String? = nil,
        enabled: Bool = true,
        clockOffsetSeconds: Double = 0
    ) {
        self.baseURL = baseURL
        self.project = project
        self.platform = platform
        self.flavor = flavor
        self.appVersion = appVersion
        self.build = build
        self.sdk = sdk
        self.sdkVersion = sdkVersion
        self.storage = storage
        self.pushToken = pushToken
        self.enabled = enabled
        self.clockOffsetSeconds = clockOffsetSeconds
    }

    public var json: JSON {
        func setting(_ s: Setting) -> JSON? {
            switch s {
            case .absent: return nil
            case .none: return .null
            case .value(let text): return .string(text)
            }
        }
        var pairs: [(String, JSON)] = [
            ("base_url", .string(baseURL)), ("project", .string(project)), ("platform", .string(platform)),
        ]
        if let flavor { pairs.append(("flavor", .string(flavor))) }
        pairs.append(("app_version", appVersion.map(JSON.string) ?? .null))
        pairs.append(("build", build.map(JSON.string) ?? .null))
        if let sdk = setting(sdk) { pairs.append(("sdk", sdk)) }
        if let version = setting(sdkVersion) { pairs.append(("sdk_version", version)) }
        if let storage { pairs.append(("storage", .string(storage))) }
        if let pushToken { pairs.append(("push_token", .string(pushToken))) }
        pairs.append(("enabled", .bool(enabled)))
        pairs.append(("clock_offset_seconds", .number(clockOffsetSeconds)))
        return .object(pairs)
    }

    /// The keys `config` may hold (ADAPTER.md's `create`).
    public static let fieldNames = [
        "base_url", "project", "platform", "flavor", "app_version", "build", "sdk", "sdk_version",
        "storage", "push_token", "enabled", "clock_offset_seconds",
    ]

    init(decoding config: CommandFields) throws(AdapterCommandError) {
        try config.checkKeys(Self.fieldNames, in: "`create`'s config")
        func setting(_ name: String) throws(AdapterCommandError) -> Setting {
            guard config.object[name] != nil else { return .absent }
            return Setting(try config.optionalString(name))
        }
        self.init(
            baseURL: try config.string("base_url"),
            project: try config.string("project"),
            platform: try config.string("platform"),
            flavor: try config.optionalString("flavor"),
            appVersion: try config.optionalString("app_version"),
            build: try config.optionalString("build"),
            sdk: try setting("sdk"),
            sdkVersion: try setting("sdk_version"),
            storage: try config.optionalString("storage"),
            pushToken: try config.optionalString("push_token"),
            enabled: try config.bool("enabled", default: true),
            clockOffsetSeconds: try config.number("clock_offset_seconds", default: 0)
        )
    }
}
