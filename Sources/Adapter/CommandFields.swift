import Clock
import JSON

/// Typed access to a request's fields, with errors that name the field and what it should be.
struct CommandFields {
    let object: JSONObject
    let prefix: String

    init(_ object: JSONObject, prefix: String = "") {
        self.object = object
        self.prefix = prefix
    }

    func has(_ name: String) -> Bool { object[name] != nil && object[name] != .null }

    func string(_ name: String) throws(CommandError) -> String {
        guard let value = object[name] else { throw CommandError("missing field \(prefix)\(name)") }
        guard let text = value.stringValue else { throw CommandError("\(prefix)\(name) must be a string, not \(value.typeName)") }
        return text
    }

    func optionalString(_ name: String) throws(CommandError) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.stringValue else { throw CommandError("\(prefix)\(name) must be a string or null, not \(value.typeName)") }
        return text
    }

    /// A string that may be absent (then `fallback`) or null (then none: absent end to end).
    func optionalString(_ name: String, default fallback: String) throws(CommandError) -> String? {
        guard object[name] != nil else { return fallback }
        return try optionalString(name)
    }

    func bool(_ name: String, default fallback: Bool? = nil) throws(CommandError) -> Bool {
        guard let value = object[name], value != .null else {
            if let fallback { return fallback }
            throw CommandError("missing field \(prefix)\(name)")
        }
        guard let flag = value.boolValue else { throw CommandError("\(prefix)\(name) must be true or false, not \(value.typeName)") }
        return flag
    }

    func int(_ name: String) throws(CommandError) -> Int {
        guard let value = object[name] else { throw CommandError("missing field \(prefix)\(name)") }
        guard let n = value.intValue else { throw CommandError("\(prefix)\(name) must be a whole number") }
        return n
    }

    func number(_ name: String, default fallback: Double) throws(CommandError) -> Double {
        guard let value = object[name], value != .null else { return fallback }
        guard let n = value.numberValue, n.isFinite, abs(n) < 1e12 else {
            throw CommandError("\(prefix)\(name) must be a number of seconds")
        }
        return n
    }

    func time(_ name: String) throws(CommandError) -> Instant {
        let text = try string(name)
        guard let instant = Instant(rfc3339: text) else {
            throw CommandError("\(prefix)\(name) must be an RFC 3339 time like 2026-12-02T11:00:00.000Z, not \(text)")
        }
        return instant
    }

    func object(_ name: String) throws(CommandError) -> CommandFields {
        guard let value = object[name] else { throw CommandError("missing field \(prefix)\(name)") }
        guard let inner = value.objectValue else { throw CommandError("\(prefix)\(name) must be an object, not \(value.typeName)") }
        return CommandFields(inner, prefix: prefix + name + ".")
    }
}
