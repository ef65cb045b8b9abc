import Clock
import JSON

/// Typed access to a request's fields, with errors that name the field by its JSON pointer
/// (`/config/platform`) and say what it should be, in the words the admin API uses.
public struct CommandFields: Sendable {
    public let object: JSONObject
    /// The pointer of this object inside the request: "" for the request, "/config" inside it.
    let base: String

    public init(_ object: JSONObject, base: String = "") {
        self.object = object
        self.base = base
    }

    public func has(_ name: String) -> Bool { object[name] != nil && object[name] != .null }

    /// Refuses every key outside `allowed` through the admin bodies' own check (``BodyFields``):
    /// a misspelt `plattform` is an error with a "did you mean", never a default silently taken.
    public func checkKeys(_ allowed: [String], in what: String) throws(AdapterCommandError) {
        if let problem = BodyFields(name: what, writable: allowed).problems(in: object, at: base).first {
            throw AdapterCommandError(problem)
        }
    }

    func pointer(_ name: String) -> String { base + "/" + FieldProblem.escape(name) }

    func missing(_ name: String, _ what: String = "") -> AdapterCommandError {
        AdapterCommandError(
            FieldProblem(pointer: pointer(name), message: "missing field \(name)\(what)", kind: .missingField)
        )
    }

    func wrongType(_ name: String, _ want: String, _ value: JSON) -> AdapterCommandError {
        AdapterCommandError(
            FieldProblem(
                pointer: pointer(name),
                message: "\(name) must be \(want), not \(value.typeName)",
                kind: .wrongType
            )
        )
    }

    public func string(_ name: String) throws(AdapterCommandError) -> String {
        guard let value = object[name] else { throw missing(name) }
        guard let text = value.stringValue else { throw wrongType(name, "a string", value) }
        return text
    }

    public func optionalString(_ name: String) throws(AdapterCommandError) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.stringValue else { throw wrongType(name, "a string or null", value) }
        return text
    }

    /// A string that may be absent (then `fallback`) or null (then none: absent end to end).
    public func optionalString(_ name: String, default fallback: String) throws(AdapterCommandError) -> String? {
        guard object[name] != nil else { return fallback }
        return try optionalString(name)
    }

    public func bool(_ name: String, default fallback: Bool? = nil) throws(AdapterCommandError) -> Bool {
        guard let value = object[name], value != .null else {
            if let fallback { return fallback }
            throw missing(name)
        }
        guard let flag = value.boolValue else { throw wrongType(name, "true or false", value) }
        return flag
    }

    public func int(_ name: String) throws(AdapterCommandError) -> Int {
        guard let value = object[name] else { throw missing(name) }
        guard let n = value.intValue else { throw wrongType(name, "a whole number", value) }
        return n
    }

    public func number(_ name: String, default fallback: Double) throws(AdapterCommandError) -> Double {
        guard let value = object[name], value != .null else { return fallback }
        guard let n = value.numberValue, n.isFinite, abs(n) < 1e12 else {
            throw wrongType(name, "a number of seconds", value)
        }
        return n
    }

    public func time(_ name: String) throws(AdapterCommandError) -> Instant {
        let text = try string(name)
        guard let instant = Instant(rfc3339: text) else {
            throw AdapterCommandError(
                FieldProblem(
                    pointer: pointer(name),
                    message: "\(name) must be an RFC 3339 time like 2026-12-02T11:00:00.000Z, not \(text)",
                    kind: .invalidValue
                )
            )
        }
        return instant
    }

    public func object(_ name: String) throws(AdapterCommandError) -> CommandFields {
        guard let value = object[name] else { throw missing(name) }
        guard let inner = value.objectValue else { throw wrongType(name, "an object", value) }
        return CommandFields(inner, base: pointer(name))
    }
}
