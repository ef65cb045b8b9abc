/// One bad field in a request body, located by a JSON pointer (RFC 6901) into that body.
///
/// Its ``Kind`` says what sort of mistake it is, the same way for every body the mock reads
/// (rules, projects, clock, faults, snapshots, `--config` files), so one mistake always earns
/// one problem type. A wrong JSON type makes the request malformed (400); the others break a
/// rule (422).
///
/// ```swift
/// FieldProblem(pointer: "/below", message: "\"2.x\" is not a version", kind: .invalidValue)
/// ```
public struct FieldProblem: Sendable, Equatable, CustomStringConvertible {
    /// The sorts of mistake, in the order one wins over another when a body has several.
    public enum Kind: Int, Sendable, Comparable, CaseIterable {
        /// Not an object where one belongs, or a field of the wrong JSON type (400).
        case wrongType
        /// A key the body does not have: a typo, or a field of another kind of body (422).
        case unknownField
        /// A required field that is absent or `null` (422).
        case missingField
        /// A field of the right type whose value breaks a rule (422).
        case invalidValue

        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }

        /// The problem+json `title` for this kind of mistake (its `type` URN derives from it).
        public var title: String {
            switch self {
            case .wrongType: return "Wrong type"
            case .unknownField: return "Unknown field"
            case .missingField: return "Missing field"
            case .invalidValue: return "Invalid value"
            }
        }

        public var status: Int { self == .wrongType ? 400 : 422 }
    }

    public var pointer: String
    public var message: String
    public var kind: Kind

    public init(pointer: String, message: String, kind: Kind) {
        self.pointer = pointer
        self.message = message
        self.kind = kind
    }

    /// A wrong type (`isTypeError`) or an invalid value.
    public init(pointer: String, message: String, isTypeError: Bool) {
        self.init(pointer: pointer, message: message, kind: isTypeError ? .wrongType : .invalidValue)
    }

    public var isTypeError: Bool { kind == .wrongType }

    /// `{"pointer": "/below", "message": "…"}`, an entry of a problem+json `errors` list.
    public var json: JSON {
        .object([("pointer", .string(pointer)), ("message", .string(message))])
    }

    public var description: String { "\(pointer.isEmpty ? "(body)" : pointer): \(message)" }

    /// Escapes one reference token for a JSON pointer (`~` → `~0`, `/` → `~1`). By Unicode
    /// scalar, not by character: a `/` followed by a combining mark is one character, and
    /// must still be escaped.
    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        var out = String.UnicodeScalarView()
        for scalar in token.unicodeScalars {
            switch scalar {
            case "~": out.append(contentsOf: "~0".unicodeScalars)
            case "/": out.append(contentsOf: "~1".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
