import LerixSDK

/// Every command of the adapter protocol (docs/ADAPTER.md), by its wire name: what the host
/// answers and what the scenario runner sends, listed once.
///
/// ```swift
/// AdapterCommand(rawValue: "set_clock")      // .setClock
/// AdapterCommand.appEvents.map(\.rawValue)   // ["launch", "foreground", …]
/// ```
public enum AdapterCommand: String, CaseIterable, Sendable {
    case hello, create, launch, foreground, background, push, refresh, network, terminate, install, later, skip, track
    /// The Swift adapter's addition: the user sets the device clock.
    case setClock = "set_clock"
    case advance
    case nextDeadline = "next_deadline"
    case state

    /// The app events that take only `device` (a scenario's `- launch: phone`).
    public static let appEvents: [AdapterCommand] = [
        .launch, .foreground, .background, .push, .refresh, .terminate, .later, .skip,
    ]

    /// The keys a request of this command may hold besides `id` and `cmd` (ADAPTER.md's table);
    /// any other key is refused, so a misspelt field never falls back to a default.
    public var fieldNames: [String] {
        switch self {
        case .hello: return ["protocol"]
        case .nextDeadline: return []
        case .create: return ["device", "now", "config", "replace"]
        case .launch, .foreground, .background, .push, .refresh, .terminate, .later, .skip, .state: return ["device"]
        case .network: return ["device", "online"]
        case .install: return ["device", "app_version", "build"]
        case .track: return ["device", "module", "count"]
        case .setClock: return ["device", "clock_offset_seconds"]
        case .advance: return ["to"]
        }
    }

    /// What an adapter must list in `hello` to take this command; nil when every adapter must.
    public var capability: AdapterCapability? {
        switch self {
        case .push: return .push
        case .refresh: return .refresh
        case .install: return .install
        case .track: return .track
        case .setClock: return .clockOffset
        default: return nil
        }
    }
}

/// The capabilities a `hello` lists (ADAPTER.md): features, and the platforms and flavors it
/// emulates (`platform:ios`, `flavor:flutter`).
///
/// ```swift
/// AdapterCapability.platform("android").rawValue   // "platform:android"
/// ```
public struct AdapterCapability: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let push = AdapterCapability(rawValue: "push")
    public static let offlineDeadline = AdapterCapability(rawValue: "offline_deadline")
    public static let install = AdapterCapability(rawValue: "install")
    public static let clockOffset = AdapterCapability(rawValue: "clock_offset")
    public static let track = AdapterCapability(rawValue: "track")
    public static let refresh = AdapterCapability(rawValue: "refresh")
    public static let features: [AdapterCapability] = [
        .push, .offlineDeadline, .install, .clockOffset, .track, .refresh,
    ]

    public static func platform(_ name: String) -> AdapterCapability { AdapterCapability(rawValue: "platform:" + name) }
    public static func flavor(_ name: String) -> AdapterCapability { AdapterCapability(rawValue: "flavor:" + name) }

    /// Every capability there is: what an adapter emulating everything lists.
    public static var all: [AdapterCapability] {
        features + AdapterVocabulary.platforms.map(platform) + AdapterVocabulary.flavors.map(flavor)
    }

    public var isPlatform: Bool { rawValue.hasPrefix("platform:") }
    public var description: String { rawValue }
}

/// The protocol's value names that are the product's own (LerixSDK's enums), so no list of them
/// is written twice.
public enum AdapterVocabulary {
    /// `config.platform` values.
    public static let platforms = Platform.allCases.map(\.rawValue)
    /// The platforms silent pushes go to (`ios`, `android`, `macos`).
    public static let pushPlatforms = Platform.allCases.filter(\.receivesPush).map(\.rawValue)
    /// `config.flavor` values.
    public static let flavors = Flavor.allCases.map(\.rawValue)
    /// The modules with items (`track`, `queued`, `sent`, ingest).
    public static let modules = LerixModule.ingestModules.map(\.rawValue)
    /// Every module a switch can pause (`paused_modules`).
    public static let pausableModules = LerixModule.allCases.map(\.rawValue)
}
