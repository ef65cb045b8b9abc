import Clock
import JSON

/// Typed access to a request's fields, with errors that name the field and what it should be.
public struct CommandFields: Sendable {
    public let object: JSONObject
    let prefix: String

    public init(_ object: JSONObject, prefix: String = "") {
        self.object = object
        self.prefix = prefix
    }

    public func has(_ name: String) -> Bool { object[name] != nil && object[name] != .null }

    public func string(_ name: String) throws(AdapterCommandError) -> String {
        guard let value = object[name] else { throw AdapterCommandError("missing field \(prefix)\(name)") }
        guard let text = value.stringValue else { throw AdapterCommandError("\(prefix)\(name) must be a string, not \(value.typeName)") }
        return text
    }

    public func optionalString(_ name: String) throws(AdapterCommandError) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.stringValue else { throw AdapterCommandError("\(prefix)\(name) must be a string or null, not \(value.typeName)") }
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
            throw AdapterCommandError("missing field \(prefix)\(name)")
        }
        guard let flag = value.boolValue else { throw AdapterCommandError("\(prefix)\(name) must be true or false, not \(value.typeName)") }
        return flag
    }

    public func int(_ name: String) throws(AdapterCommandError) -> Int {
        guard let value = object[name] else { throw AdapterCommandError("missing field \(prefix)\(name)") }
        guard let n = value.intValue else { throw AdapterCommandError("\(prefix)\(name) must be a whole number") }
        return n
    }

    public func number(_ name: String, default fallback: Double) throws(AdapterCommandError) -> Double {
        guard let value = object[name], value != .null else { return fallback }
        guard let n = value.numberValue, n.isFinite, abs(n) < 1e12 else {
            throw AdapterCommandError("\(prefix)\(name) must be a number of seconds")
        }
        return n
    }

    public func time(_ name: String) throws(AdapterCommandError) -> Instant {
        let text = try string(name)
        guard let instant = Instant(rfc3339: text) else {
            throw AdapterCommandError("\(prefix)\(name) must be an RFC 3339 time like 2026-12-02T11:00:00.000Z, not \(text)")
        }
        return instant
    }

    public func object(_ name: String) throws(AdapterCommandError) -> CommandFields {
        guard let value = object[name] else { throw AdapterCommandError("missing field \(prefix)\(name)") }
        guard let inner = value.objectValue else { throw AdapterCommandError("\(prefix)\(name) must be an object, not \(value.typeName)") }
        return CommandFields(inner, prefix: prefix + name + ".")
    }
}
