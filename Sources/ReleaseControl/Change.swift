import Clock
import JSON

/// One admin-made release-control change, as `GET …/changes` lists it.
///
/// Seeding a project and time passing are not changes; everything an admin does to
/// the rules is, even a lift-all that found nothing to lift (it is then not blocking).
///
/// ```swift
/// let (_, change) = try project.createRule(body, now: clock.now)
/// if change.blocking { actions = throttle.blockingChange(id: change.id, now: clock.now) }
/// ```
public struct Change: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case created, updated, deleted
        case liftedAll = "lifted_all"
    }

    /// 1, 2, 3, … within the project.
    public var id: Int
    public var at: Instant
    public var kind: Kind
    /// For people: `created required_update r3`, `deleted maintenance r2`, `lift-all lifted r1, r4`.
    public var action: String
    /// The rule created, updated or deleted; nil for a lift-all.
    public var ruleId: String?
    /// The rules a lift-all removed (empty for the other kinds).
    public var lifted: [String]
    /// True when the change blocks or unblocks users (contract "Push"): it sends a silent push.
    public var blocking: Bool

    public init(
        id: Int,
        at: Instant,
        kind: Kind,
        action: String,
        ruleId: String?,
        lifted: [String] = [],
        blocking: Bool
    ) {
        self.id = id
        self.at = at
        self.kind = kind
        self.action = action
        self.ruleId = ruleId
        self.lifted = lifted
        self.blocking = blocking
    }

    /// `{"id", "at", "kind", "action", "rule", "blocking"}`, plus `"lifted"` for a lift-all.
    public var json: JSON {
        var pairs: [(String, JSON)] = [
            ("id", .number(Double(id))),
            ("at", .string(at.rfc3339)),
            ("kind", .string(kind.rawValue)),
            ("action", .string(action)),
            ("rule", ruleId.map(JSON.string) ?? .null),
        ]
        if kind == .liftedAll { pairs.append(("lifted", .array(lifted.map(JSON.string)))) }
        pairs.append(("blocking", .bool(blocking)))
        return .object(pairs)
    }

    /// Rebuilds a change from its ``json`` (as a store saved it); nil when a field is missing
    /// or of the wrong type.
    public static func restore(_ json: JSON) -> Change? {
        guard let id = json["id"]?.intValue,
            let atText = json["at"]?.stringValue, let at = Instant(rfc3339: atText),
            let kindText = json["kind"]?.stringValue, let kind = Kind(rawValue: kindText),
            let action = json["action"]?.stringValue,
            let blocking = json["blocking"]?.boolValue
        else { return nil }
        var ruleId: String?
        switch json["rule"] {
        case nil, .null?: ruleId = nil
        case .string(let id)? where Rule.idProblem(id) == nil: ruleId = id
        default: return nil
        }
        var lifted: [String] = []
        if let value = json["lifted"] {
            guard let items = value.arrayValue else { return nil }
            for item in items {
                guard let s = item.stringValue, Rule.idProblem(s) == nil else { return nil }
                lifted.append(s)
            }
        }
        return Change(id: id, at: at, kind: kind, action: action, ruleId: ruleId, lifted: lifted, blocking: blocking)
    }
}
