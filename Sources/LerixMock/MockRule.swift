import Clock
import Foundation
import JSON
import LerixSDK

/// A rule body the mock's admin API takes, one type per rule type. The server validates it
/// as it validates `POST …/rules` (a problem comes back as ``MockProblem``).
public protocol MockRule: Sendable {
    /// The body of `POST /admin/projects/{project}/rules`, JSON (docs/CONTRACT.md's rule object).
    var jsonBody: Data { get }
}

/// Any rule, as the JSON the admin API takes: for a field the typed rules do not carry.
///
/// ```swift
/// try mock.create(RawRule(#"{"type": "required_update", "below": "2.4.0", "platforms": ["ios"]}"#))
/// ```
public struct RawRule: MockRule {
    /// The body as given.
    public var jsonBody: Data

    /// A rule from its JSON text, sent as it is (the server validates it).
    public init(_ json: String) { jsonBody = Data(json.utf8) }
}

/// The typed rules build their bodies as JSON values.
protocol JSONRule: MockRule {
    var json: JSON { get }
}

extension JSONRule {
    /// The body of `POST …/rules`.
    public var jsonBody: Data { Data(json.serialized()) }
}

/// Blocks app versions below `below` until a new version is installed.
///
/// ```swift
/// let id = try mock.create(RequiredUpdateRule(below: "2.4.0", message: "Please update"))
/// ```
public typealias RequiredUpdateRule = UpdateRule<RequiredUpdate>

/// Offers a new version; the user may tap Later or Skip.
public typealias OptionalUpdateRule = UpdateRule<OptionalUpdate>

/// What kind of update an ``UpdateRule`` offers: LerixSDK's ``RequiredUpdate`` or ``OptionalUpdate``.
public protocol UpdateRuleKind: Sendable {
    /// The rule's `type` on the wire.
    static var ruleType: String { get }
}

extension RequiredUpdate: UpdateRuleKind {
    /// `required_update`.
    public static var ruleType: String { "required_update" }
}

extension OptionalUpdate: UpdateRuleKind {
    /// `optional_update`.
    public static var ruleType: String { "optional_update" }
}

/// An update rule: ``RequiredUpdateRule`` and ``OptionalUpdateRule`` are its two types.
public struct UpdateRule<Kind: UpdateRuleKind>: JSONRule {
    /// Versions below this one get the update (`2.4.0`).
    public var below: String
    /// The platforms it applies to; empty for every platform.
    public var platforms: [Platform]
    /// Where the update is, shown by the app.
    public var storeURL: String?
    /// The text the app shows.
    public var message: String?

    /// The rule; the server checks it when it is created.
    public init(below: String, platforms: [Platform] = [], storeURL: String? = nil, message: String? = nil) {
        self.below = below
        self.platforms = platforms
        self.storeURL = storeURL
        self.message = message
    }

    var json: JSON { RuleJSON.update(Kind.ruleType, below, platforms, storeURL, message) }
}

/// An optional update that becomes required at `becomesRequiredOn`.
public struct RecommendedUpdateRule: JSONRule {
    /// Versions below this one get the update (`2.4.0`).
    public var below: String
    /// When it turns into a required update (on Android and Flutter offline too).
    public var becomesRequiredOn: Date
    /// The platforms it applies to; empty for every platform.
    public var platforms: [Platform]
    /// Where the update is, shown by the app.
    public var storeURL: String?
    /// The text the app shows.
    public var message: String?

    /// The rule; the server checks it when it is created.
    public init(
        below: String,
        becomesRequiredOn: Date,
        platforms: [Platform] = [],
        storeURL: String? = nil,
        message: String? = nil
    ) {
        self.below = below
        self.becomesRequiredOn = becomesRequiredOn
        self.platforms = platforms
        self.storeURL = storeURL
        self.message = message
    }

    var json: JSON {
        guard case .object(var o) = RuleJSON.update("recommended_update", below, platforms, storeURL, message) else {
            return .null
        }
        o["becomes_required_on"] = .string(Instant(becomesRequiredOn).rfc3339)
        return .object(o)
    }
}

/// A maintenance window (at most 7 days).
public struct MaintenanceRule: JSONRule {
    /// When the window starts.
    public var startsAt: Date
    /// When it ends.
    public var endsAt: Date
    /// The platforms it applies to; empty for every platform.
    public var platforms: [Platform]
    /// The text the app shows.
    public var message: String?

    /// The rule; the server checks it when it is created.
    public init(from startsAt: Date, until endsAt: Date, platforms: [Platform] = [], message: String? = nil) {
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.platforms = platforms
        self.message = message
    }

    var json: JSON {
        var pairs: [(String, JSON)] = [
            ("type", "maintenance"), ("starts_at", .string(Instant(startsAt).rfc3339)),
            ("ends_at", .string(Instant(endsAt).rfc3339)),
        ]
        if !platforms.isEmpty { pairs.append(("platforms", .array(platforms.map { .string($0.rawValue) }))) }
        if let message { pairs.append(("message", .string(message))) }
        return .object(pairs)
    }
}

/// Pauses modules of the Lerix SDK itself until `endsAt` (only SDKs below a version, when given).
public struct SDKSwitchRule: JSONRule {
    /// The modules paused.
    public var modules: [LerixModule]
    /// When it ends.
    public var endsAt: Date
    /// The SDKs it applies to (a name, and a version they are below); empty for every SDK.
    public var sdks: [(name: String, below: String?)]

    /// The rule; the server checks it when it is created.
    public init(pausing modules: [LerixModule], until endsAt: Date, sdks: [(name: String, below: String?)] = []) {
        self.modules = modules
        self.endsAt = endsAt
        self.sdks = sdks
    }

    var json: JSON {
        var pairs: [(String, JSON)] = [
            ("type", "sdk_switch"), ("modules", .array(modules.map { .string($0.rawValue) })),
            ("ends_at", .string(Instant(endsAt).rfc3339)),
        ]
        if !sdks.isEmpty {
            pairs.append(
                (
                    "sdks",
                    .array(
                        sdks.map {
                            .object([("name", .string($0.name)), ("below", $0.below.map(JSON.string) ?? .null)])
                        }
                    )
                )
            )
        }
        return .object(pairs)
    }
}

enum RuleJSON {
    static func update(
        _ type: String,
        _ below: String,
        _ platforms: [Platform],
        _ storeURL: String?,
        _ message: String?
    ) -> JSON {
        var pairs: [(String, JSON)] = [("type", .string(type)), ("below", .string(below))]
        if !platforms.isEmpty { pairs.append(("platforms", .array(platforms.map { .string($0.rawValue) }))) }
        if let storeURL { pairs.append(("store_url", .string(storeURL))) }
        if let message { pairs.append(("message", .string(message))) }
        return .object(pairs)
    }
}

/// A fault on the check endpoint: the next checks (`count`, default every one) get it.
public enum MockFault: Sendable {
    /// An error status, with `Retry-After` seconds when given.
    case status(Int, retryAfter: Int? = nil, count: Int? = nil)
    /// In process an answer that is not given at once is a timeout for the app (its transport
    /// has nobody to wait for); over ``LerixMock/listen()`` it arrives after `seconds` of the mock's time.
    case delay(seconds: Double, count: Int? = nil)
    /// The connection reset with no answer.
    case reset(count: Int? = nil)
    /// A 200 whose body is not JSON.
    case malformed(count: Int? = nil)
    /// A 200 whose fields have the wrong JSON types.
    case wrongTypes(count: Int? = nil)

    var json: JSON {
        var pairs: [(String, JSON)]
        let count: Int?
        switch self {
        case .status(let status, let retryAfter, let n):
            pairs = [("kind", "status"), ("status", .number(Double(status)))]
            if let retryAfter { pairs.append(("retry_after", .number(Double(retryAfter)))) }
            count = n
        case .delay(let seconds, let n):
            pairs = [("kind", "delay"), ("seconds", .number(seconds))]
            count = n
        case .reset(let n):
            pairs = [("kind", "reset")]
            count = n
        case .malformed(let n):
            pairs = [("kind", "malformed")]
            count = n
        case .wrongTypes(let n):
            pairs = [("kind", "wrong_types")]
            count = n
        }
        if let count { pairs.append(("count", .number(Double(count)))) }
        return .object(pairs)
    }
}

/// The server refused an admin call: its problem+json, as a Swift error.
public struct MockProblem: Error, Sendable, CustomStringConvertible {
    /// The HTTP status the server answered (422 for a field at fault, 404 for a missing rule, 410 for a removed one, …).
    public var status: Int
    /// The problem's title (`Invalid rule`).
    public var title: String
    /// The problem's detail in words.
    public var detail: String
    /// Each field at fault: its JSON pointer and what is wrong.
    public var errors: [(pointer: String, message: String)]

    /// A problem of the library's own (a time set back, a project key the server would refuse).
    public init(status: Int, title: String, detail: String, errors: [(pointer: String, message: String)] = []) {
        self.status = status
        self.title = title
        self.detail = detail
        self.errors = errors
    }

    /// The server's problem+json (nil: it sent none).
    init(status: Int, problem: JSON?) {
        self.status = status
        title = problem?["title"]?.stringValue ?? "HTTP \(status)"
        detail = problem?["detail"]?.stringValue ?? ""
        errors = (problem?["errors"]?.arrayValue ?? []).map {
            (
                pointer: $0["pointer"]?.stringValue ?? $0["parameter"]?.stringValue ?? "",
                message: $0["message"]?.stringValue ?? ""
            )
        }
    }

    /// `422 Invalid rule: … (/ends_at: …)`.
    public var description: String {
        let fields = errors.map { "\($0.pointer): \($0.message)" }.joined(separator: "; ")
        return "\(status) \(title): \(detail)" + (fields.isEmpty ? "" : " (\(fields))")
    }
}
