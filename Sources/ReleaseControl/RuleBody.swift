import Clock

/// What a rule says, without its id: one case per ``RuleType``, with that type's fields.
///
/// Decode one from a request body with ``decode(_:id:)``, which validates it per the
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
