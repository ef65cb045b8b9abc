import AdapterProtocol
import Clock
import JSON
import ReleaseControl
import YAML

/// One scenario file, checked and typed: who the devices are, what the server starts with,
/// and the steps to run in virtual time.
///
/// ```swift
/// let scenario = try Scenario.parse(bytes, file: "Scenarios/push-loop.yaml", catalogue: catalogue)
/// scenario.devices.count     // devices after expanding matrices and fleets
/// ```
public struct Scenario: Sendable {
    public var file: String
    public var name: String
    public var description: String?
    public var tags: [String]
    /// Spec catalogue row ids this scenario pins.
    public var covers: [String]
    /// Adapter capabilities the scenario needs beyond those implied by its devices.
    public var needs: [String]
    /// `platform_reason`: why some device may run only on some platforms, in the spec's words;
    /// a skip for a platform the adapter lacks quotes it.
    public var platformReason: String? = nil
    public var project: String
    /// Rules that exist before the scenario's time 0 (created more than 30 minutes earlier,
    /// so they count as old changes: lifetimes start at 300 s and no push is pending).
    public var rules: [RuleSpec]
    public var devices: [DeviceSpec]
    /// Named groups of devices: each matrix or fleet entry, plus `all`.
    public var groups: [String: [String]]
    public var steps: [Step]

    /// The true time an in-process server starts at: fixed, so every run prints the same times
    /// (``MockDefaults/virtualStart``, where LerixMock starts too). Rule bodies are checked
    /// against the server's rules with relative times placed after it.
    public static let inProcessStart = MockDefaults.virtualStart

    /// The scenario with every device that has platform choices put on the first platform in
    /// `emulated` (an adapter that lists no platform emulates them all: the first choice).
    /// Nil when some device has no choice the adapter emulates (then it is skipped).
    public func narrowed(toPlatforms emulated: Set<String>?) -> Scenario {
        var out = self
        out.devices = devices.map { d in
            guard let choices = d.platformChoices else { return d }
            let pick = emulated.flatMap { set in choices.first(where: set.contains) } ?? choices[0]
            return d.on(platform: pick)
        }
        return out
    }

    /// Capabilities an adapter must list to run this scenario: its devices' platforms and
    /// flavors, push for a device with a token, clock_offset for a wrong device clock, what
    /// its steps' commands need, and its `needs`.
    public var requiredCapabilities: [String] {
        var caps = Set(needs)
        for d in devices {
            caps.insert(AdapterCapability.platform(d.platform).rawValue)
            if d.flavor != "native" { caps.insert(AdapterCapability.flavor(d.flavor).rawValue) }
            if d.pushToken != nil { caps.insert(AdapterCapability.push.rawValue) }
            if d.clockOffsetSeconds != 0 { caps.insert(AdapterCapability.clockOffset.rawValue) }
        }
        for step in steps {
            if let capability = step.action.command?.capability { caps.insert(capability.rawValue) }
        }
        return caps.sorted()
    }
}

extension Scenario {
    /// A scenario of just a file and a name, on project `demo`, with nothing else yet: the
    /// parser fills in what the file says, explore a generated history.
    public init(file: String, name: String) {
        self.init(
            file: file,
            name: name,
            description: nil,
            tags: [],
            covers: [],
            needs: [],
            project: MockDefaults.projectKey,
            rules: [],
            devices: [],
            groups: [:],
            steps: []
        )
    }
}

/// A rule the scenario refers to by its own name; the server assigns the real id.
public struct RuleSpec: Sendable {
    public var name: String
    /// The body as the admin API takes it, with relative times still unresolved.
    public var body: JSON
    public var location: SourceLocation
    /// `rejected: true`: the step expects the server to refuse the rule (a 4xx), e.g. a window over 7 days.
    public var expectRejected: Bool = false

    package init(name: String, body: JSON, location: SourceLocation, expectRejected: Bool = false) {
        self.name = name
        self.body = body
        self.location = location
        self.expectRejected = expectRejected
    }
}

/// One emulated app install.
public struct DeviceSpec: Sendable, Equatable {
    public var name: String
    public var platform: String
    public var flavor: String
    public var appVersion: String?
    public var build: String?
    /// Nil: the app sends no `sdk` (written `sdk: null`).
    public var sdk: String?
    public var sdkVersion: String?
    public var pushToken: String?
    public var enabled: Bool
    public var clockOffsetSeconds: Int64
    /// Storage folder name, when two devices share one (an app reinstalled with other settings).
    public var storage: String? = nil
    /// The set of platforms the device may run on (`platform: [android, web]`, `any`, or left out:
    /// any), in the vocabulary's order (ios, android, macos, web): the runner puts it on the first
    /// of them the adapter emulates (``on(platform:)``). Nil: `platform` only.
    public var platformChoices: [String]? = nil
    /// `sdk` was written; else it follows the platform (and flavor).
    var sdkWritten = true
    /// `push: true` without a `push_token`: the token follows the platform's provider format.
    var defaultPushToken = false

    package init(
        name: String,
        platform: String,
        flavor: String,
        appVersion: String?,
        build: String?,
        sdk: String?,
        sdkVersion: String?,
        pushToken: String?,
        enabled: Bool,
        clockOffsetSeconds: Int64,
        storage: String? = nil,
        platformChoices: [String]? = nil,
        sdkWritten: Bool = true,
        defaultPushToken: Bool = false
    ) {
        self.name = name
        self.platform = platform
        self.flavor = flavor
        self.appVersion = appVersion
        self.build = build
        self.sdk = sdk
        self.sdkVersion = sdkVersion
        self.pushToken = pushToken
        self.enabled = enabled
        self.clockOffsetSeconds = clockOffsetSeconds
        self.storage = storage
        self.platformChoices = platformChoices
        self.sdkWritten = sdkWritten
        self.defaultPushToken = defaultPushToken
    }

    /// The `config` of ADAPTER.md's `create`, with what the runner fills in (base URL, storage).
    public func config(baseURL: String, project: String, storage: String) -> DeviceConfig {
        DeviceConfig(
            baseURL: baseURL,
            project: project,
            platform: platform,
            flavor: flavor,
            appVersion: appVersion,
            build: build,
            sdk: sdk.map(DeviceConfig.Setting.value) ?? .none,
            sdkVersion: sdkVersion.map(DeviceConfig.Setting.value) ?? .none,
            storage: storage,
            pushToken: pushToken,
            enabled: enabled,
            clockOffsetSeconds: Double(clockOffsetSeconds)
        )
    }
}

/// Where something was written: `file:line:column`.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var mark: YAMLMark
    public init(file: String, mark: YAMLMark) {
        self.file = file
        self.mark = mark
    }
    public var description: String { mark.line > 0 ? "\(file):\(mark.line):\(mark.column)" : file }
}
