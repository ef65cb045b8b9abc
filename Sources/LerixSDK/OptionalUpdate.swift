import Clock
import JSON

/// An optional or recommended update: a prompt the user may defer with Later or Skip.
public struct OptionalUpdate: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case optional, recommended
    }

    public var rule: String
    public var kind: Kind
    public var below: String?
    public var storeURL: String?
    public var message: String?
    /// When a recommended update turns into a required one (server time).
    public var becomesRequiredOn: Instant?

    public init(
        rule: String, kind: Kind = .optional, below: String? = nil, storeURL: String? = nil,
        message: String? = nil, becomesRequiredOn: Instant? = nil
    ) {
        self.rule = rule
        self.kind = kind
        self.below = below
        self.storeURL = storeURL
        self.message = message
        self.becomesRequiredOn = becomesRequiredOn
    }

    /// Reads the answer's `optional_update` object. An unknown `kind` reads as optional, a bad
    /// `becomes_required_on` as none. Nil for anything that is not an object.
    public init?(json: JSON) {
        guard let object = json.objectValue else { return nil }
        self.init(
            rule: object["rule"]?.stringValue ?? "",
            kind: object["kind"]?.stringValue.flatMap(Kind.init(rawValue:)) ?? .optional,
            below: object["below"]?.stringValue, storeURL: object["store_url"]?.stringValue,
            message: object["message"]?.stringValue,
            becomesRequiredOn: object["becomes_required_on"]?.stringValue.flatMap { Instant(rfc3339: $0) })
    }

    /// The required update this recommended update turns into once its deadline passes.
    public var asRequired: RequiredUpdate {
        RequiredUpdate(rule: rule, below: below, storeURL: storeURL, message: message)
    }

    public var json: JSON {
        .object([
            ("rule", .string(rule)), ("kind", .string(kind.rawValue)), ("below", below.map(JSON.string) ?? .null),
            ("store_url", storeURL.map(JSON.string) ?? .null), ("message", message.map(JSON.string) ?? .null),
            ("becomes_required_on", becomesRequiredOn.map { .string($0.rfc3339) } ?? .null),
        ])
    }
}
