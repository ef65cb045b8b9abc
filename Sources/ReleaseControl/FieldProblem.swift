import JSON

/// One bad field in a request body, located by a JSON pointer (RFC 6901) into that body.
///
/// `isTypeError` marks problems that make the request malformed (400: not an object,
/// a field of the wrong JSON type); the others break a rule (422: a missing required
/// field, an unknown platform, a bad version, …).
///
/// ```swift
/// FieldProblem(pointer: "/below", message: "\"2.x\" is not a version", isTypeError: false)
/// ```
public struct FieldProblem: Sendable, Equatable, CustomStringConvertible {
    public var pointer: String
    public var message: String
    public var isTypeError: Bool

    public init(pointer: String, message: String, isTypeError: Bool) {
        self.pointer = pointer
        self.message = message
        self.isTypeError = isTypeError
    }

    /// `{"pointer": "/below", "message": "…"}`, an entry of a problem+json `errors` list.
    public var json: JSON {
        .object([("pointer", .string(pointer)), ("message", .string(message))])
    }

    public var description: String { "\(pointer.isEmpty ? "(body)" : pointer): \(message)" }

    /// Escapes one reference token for a JSON pointer (`~` → `~0`, `/` → `~1`).
    public static func escape(_ token: String) -> String {
        var out = ""
        for c in token {
            switch c {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.append(c)
            }
        }
        return out
    }
}
