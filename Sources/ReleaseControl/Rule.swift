import JSON

/// A rule of one project: an id the project assigned (`r1`, `r2`, …, never reused) and its body.
///
/// ```swift
/// let rule = try Rule.decode(JSON.parse(#"{"type":"maintenance","starts_at":"…","ends_at":"…"}"#), id: "r4")
/// rule.json   // {"id":"r4","type":"maintenance","platforms":null,…}
/// ```
public struct Rule: Sendable, Equatable {
    public var id: String
    public var body: RuleBody

    public init(id: String, body: RuleBody) {
        self.id = id
        self.body = body
    }

    public var type: RuleType { body.type }

    /// Validates `json` as a rule body (see ``RuleBody/decode(_:id:)``) and gives it `id`
    /// (which the body may repeat).
    public static func decode(_ json: JSON, id: String) throws(ValidationFailure) -> Rule {
        Rule(id: id, body: try RuleBody.decode(json, id: id))
    }

    /// Rebuilds a rule from its own ``json`` (as a store saved it): the `id` field must be a
    /// non-empty string.
    public static func restore(_ json: JSON) throws(ValidationFailure) -> Rule {
        guard case .string(let id)? = json["id"], !id.isEmpty else {
            throw ValidationFailure("/id", "a stored rule needs its id as a non-empty string", kind: .invalidValue)
        }
        if let problem = Identifier.problem(id) {
            throw ValidationFailure(problems: [
                FieldProblem(pointer: "/id", message: "the rule id \(problem)", isTypeError: false)
            ])
        }
        return try decode(json, id: id)
    }

    /// The rule as the admin API shows it: `id` and `type` first, then the type's fields.
    public var json: JSON {
        var pairs: [(String, JSON)] = [("id", .string(id))]
        pairs.append(contentsOf: body.jsonPairs)
        return .object(pairs)
    }

    /// The number in an id of the form `r<number>`, for keeping new ids unique after a restore.
    static func number(of id: String) -> Int? {
        guard id.hasPrefix("r") else { return nil }
        return Int(id.dropFirst())
    }
}
