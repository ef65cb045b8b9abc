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
        if let problem = idProblem(id) {
            throw ValidationFailure(problems: [
                FieldProblem(pointer: "/id", message: "the rule id \(problem)", isTypeError: false)
            ])
        }
        return try decode(json, id: id)
    }

    /// Why `id` cannot be a rule id, or nil: a control character, or `r<n>` with `n` past
    /// ``Identifier/maximumNumber`` (new ids continue from the highest `n`, which must not overflow).
    public static func idProblem(_ id: String) -> String? {
        if let problem = Identifier.problem(id) { return problem }
        guard id.hasPrefix("r"), id.utf8.count > 1, id.utf8.dropFirst().allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return nil
        }
        if number(of: id) == nil {
            return "is past r\(Identifier.maximumNumber), the largest rule id"
        }
        return nil
    }

    /// The rule as the admin API shows it: `id` and `type` first, then the type's fields.
    public var json: JSON {
        var pairs: [(String, JSON)] = [("id", .string(id))]
        pairs.append(contentsOf: body.jsonPairs)
        return .object(pairs)
    }

    /// The number in an id of the form `r<digits>`, for keeping new ids unique after a restore;
    /// nil past ``Identifier/maximumNumber`` (such ids are refused where they are read).
    static func number(of id: String) -> Int? {
        guard id.hasPrefix("r") else { return nil }
        let digits = id.utf8.dropFirst()
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        var n = 0
        for digit in digits {
            n = n * 10 + Int(digit - 48)
            if n > Identifier.maximumNumber { return nil }  // before it can overflow
        }
        return n
    }
}
