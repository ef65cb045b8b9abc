import JSON
import Clock

/// What a rule says, without its id: one case per ``RuleType``, with that type's fields.
///
/// Decode one from a request body with ``decode(_:)``, which validates it per the
/// contract's "Rules" section; show it with ``json``.
///
/// ```swift
/// let body = try RuleBody.decode(JSON.parse(#"{"type":"required_update","below":"2.4.0"}"#))
/// body.type    // .requiredUpdate
/// ```
public enum RuleBody: Sendable, Equatable {
    case requiredUpdate(UpdateRule)
    case optionalUpdate(UpdateRule)
    /// Answers as optional until `becomesRequiredOn`, and as required from that instant on.
    case recommendedUpdate(UpdateRule, becomesRequiredOn: Instant)
    case maintenance(MaintenanceWindow)
    case sdkSwitch(SDKSwitch)

    public var type: RuleType {
        switch self {
        case .requiredUpdate: return .requiredUpdate
        case .optionalUpdate: return .optionalUpdate
        case .recommendedUpdate: return .recommendedUpdate
        case .maintenance: return .maintenance
        case .sdkSwitch: return .sdkSwitch
        }
    }

    /// The update fields, for the three update types.
    public var update: UpdateRule? {
        switch self {
        case .requiredUpdate(let u), .optionalUpdate(let u), .recommendedUpdate(let u, _): return u
        case .maintenance, .sdkSwitch: return nil
        }
    }

    /// True when, at `now`, this rule blocks the devices it matches: a required update,
    /// or a recommended update whose deadline has come (`now >= becomes_required_on`).
    public func isRequired(at now: Instant) -> Bool {
        switch self {
        case .requiredUpdate: return true
        case .recommendedUpdate(_, let deadline): return now >= deadline
        case .optionalUpdate, .maintenance, .sdkSwitch: return false
        }
    }
}

/// The fields shared by required, optional and recommended updates.
public struct UpdateRule: Sendable, Equatable {
    /// nil: every platform.
    public var platforms: [Platform]?
    /// Devices strictly below this version match.
    public var below: Version
    public var storeURL: String?
    public var message: String?

    public init(platforms: [Platform]? = nil, below: Version, storeURL: String? = nil, message: String? = nil) {
        self.platforms = platforms
        self.below = below
        self.storeURL = storeURL
        self.message = message
    }
}

/// A maintenance window: it ends after it starts, and at most 7 days after.
public struct MaintenanceWindow: Sendable, Equatable {
    /// nil: every platform.
    public var platforms: [Platform]?
    public var startsAt: Instant
    public var endsAt: Instant
    public var message: String?

    /// Longest window the contract allows, in seconds.
    public static let maximumDurationSeconds: Int64 = 7 * 86_400

    public init(platforms: [Platform]? = nil, startsAt: Instant, endsAt: Instant, message: String? = nil) {
        self.platforms = platforms
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.message = message
    }

    /// True when at `now` the window is active or starts at most an hour later, and has
    /// not ended: what makes its changes blocking and answers' lifetimes short.
    public func isActiveOrImminent(at now: Instant) -> Bool {
        endsAt > now && startsAt <= now.adding(seconds: 3600)
    }
}

/// A switch that pauses some Lerix SDK modules until `endsAt`.
public struct SDKSwitch: Sendable, Equatable {
    /// nil: every device, whatever SDK it names (or none).
    public var sdks: [SDKMatch]?
    /// Never empty; duplicates removed, order kept.
    public var modules: [SDKModule]
    public var endsAt: Instant

    public init(sdks: [SDKMatch]? = nil, modules: [SDKModule], endsAt: Instant) {
        self.sdks = sdks
        self.modules = modules
        self.endsAt = endsAt
    }
}

/// One `sdks` entry of a switch: an SDK name, and optionally the version it applies below.
public struct SDKMatch: Sendable, Equatable {
    public var name: String
    /// nil: every version of that SDK, even when the device sends none.
    public var below: Version?

    public init(name: String, below: Version? = nil) {
        self.name = name
        self.below = below
    }
}
