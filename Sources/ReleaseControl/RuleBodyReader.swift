import Clock
import JSON

/// Reads fields of one rule body, recording every problem it meets.
struct RuleBodyReader {
    var problems: [FieldProblem] = []

    var failure: ValidationFailure { ValidationFailure(problems: problems) }

    /// Wraps a possibly-absent optional so "absent" and "invalid" stay apart.
    struct Present<T> { var value: T }

    mutating func fail(_ pointer: String, _ message: String, kind: FieldProblem.Kind = .invalidValue) {
        problems.append(FieldProblem(pointer: pointer, message: message, kind: kind))
    }

    /// The field, or nil when absent or `null`.
    func field(_ object: JSONObject, _ key: String) -> JSON? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    mutating func requiredString(_ object: JSONObject, _ key: String) -> String? {
        guard let value = field(object, key) else {
            fail("/" + key, "\(key) is required", kind: .missingField)
            return nil
        }
        return string(value, at: "/" + key, name: key)
    }

    mutating func string(_ value: JSON, at pointer: String, name: String) -> String? {
        guard case .string(let s) = value else {
            fail(pointer, "\(name) must be a string, found \(value.typeName)", kind: .wrongType)
            return nil
        }
        return s
    }

    /// nil for absent and for a wrong type (the latter recorded).
    mutating func optionalString(_ object: JSONObject, _ key: String) -> String? {
        guard let value = field(object, key) else { return nil }
        return string(value, at: "/" + key, name: key)
    }

    mutating func version(_ value: JSON, at pointer: String, name: String) -> Version? {
        guard let text = string(value, at: pointer, name: name) else { return nil }
        guard let version = Version(text) else {
            fail(
                pointer,
                "\(name) \"\(text)\" is not a version; write dotted numbers like 2.4.0, optionally with a pre-release like 2.4.0-beta.1"
            )
            return nil
        }
        return version
    }

    mutating func requiredVersion(_ object: JSONObject, _ key: String) -> Version? {
        guard let value = field(object, key) else {
            fail(
                "/" + key,
                "\(key) is required (the version devices must be at or above, like 2.4.0)",
                kind: .missingField
            )
            return nil
        }
        return version(value, at: "/" + key, name: key)
    }

    mutating func requiredTime(_ object: JSONObject, _ key: String) -> Instant? {
        guard let value = field(object, key) else {
            fail("/" + key, "\(key) is required (an RFC 3339 time like 2026-12-02T11:00:00.000Z)", kind: .missingField)
            return nil
        }
        guard let text = string(value, at: "/" + key, name: key) else { return nil }
        guard let instant = Instant(rfc3339: text) else {
            fail(
                "/" + key,
                "\(key) \"\(text)\" is not an RFC 3339 time from year 0000 to 9999 (UTC); write it like 2026-12-02T11:00:00.000Z"
            )
            return nil
        }
        return instant
    }

    /// `.value == nil` for absent (all platforms); nil when invalid.
    mutating func platforms(_ object: JSONObject) -> Present<[Platform]?>? {
        guard let value = field(object, "platforms") else { return Present(value: nil) }
        guard case .array(let items) = value else {
            fail(
                "/platforms",
                "platforms must be an array of platform names, found \(value.typeName)",
                kind: .wrongType
            )
            return nil
        }
        if items.isEmpty {
            fail(
                "/platforms",
                "platforms must list at least one of \(Platform.listText); leave it out for every platform"
            )
            return nil
        }
        var platforms: [Platform] = []
        var ok = true
        for (i, item) in items.enumerated() {
            let pointer = "/platforms/\(i)"
            guard let name = string(item, at: pointer, name: "a platform") else {
                ok = false
                continue
            }
            guard let platform = Platform(rawValue: name) else {
                fail(
                    pointer,
                    "unknown platform \"\(name)\""
                        + KeySuggestion.hint(for: name, in: Platform.allCases.map(\.rawValue))
                )
                ok = false
                continue
            }
            // Listed twice is refused, not merged: the schema says uniqueItems, and what GET shows
            // must be what was sent.
            guard !platforms.contains(platform) else {
                fail(pointer, "\"\(name)\" is listed twice")
                ok = false
                continue
            }
            platforms.append(platform)
        }
        return ok ? Present(value: platforms) : nil
    }

    /// `.value == nil` for absent (all SDKs); nil when invalid.
    mutating func sdks(_ object: JSONObject) -> Present<[SDKMatch]?>? {
        guard let value = field(object, "sdks") else { return Present(value: nil) }
        guard case .array(let items) = value else {
            fail(
                "/sdks",
                "sdks must be an array of {\"name\", \"below\"} objects, found \(value.typeName)",
                kind: .wrongType
            )
            return nil
        }
        if items.isEmpty {
            fail("/sdks", "sdks must list at least one SDK; leave it out for every SDK")
            return nil
        }
        var matches: [SDKMatch] = []
        var ok = true
        for (i, item) in items.enumerated() {
            let pointer = "/sdks/\(i)"
            guard case .object(let entry) = item else {
                fail(
                    pointer,
                    "an sdks entry must be an object like {\"name\": \"swift\", \"below\": \"1.4.2\"}, found \(item.typeName)",
                    kind: .wrongType
                )
                ok = false
                continue
            }
            problems += BodyFields(name: "an sdks entry", writable: ["name", "below"]).problems(in: entry, at: pointer)
            var name: String?
            if let nameValue = field(entry, "name") {
                name = string(nameValue, at: pointer + "/name", name: "name")
                if name == "" {
                    fail(pointer + "/name", "name must not be empty")
                    name = nil
                }
            } else {
                fail(pointer + "/name", "name is required (the SDK's name, like swift)", kind: .missingField)
            }
            var below: Version?
            var belowOK = true
            if let belowValue = field(entry, "below") {
                below = version(belowValue, at: pointer + "/below", name: "below")
                belowOK = below != nil
            }
            guard let name, belowOK else {
                ok = false
                continue
            }
            matches.append(SDKMatch(name: name, below: below))
        }
        return ok ? Present(value: matches) : nil
    }

    mutating func modules(_ object: JSONObject) -> [SDKModule]? {
        guard let value = field(object, "modules") else {
            fail("/modules", "modules is required (a list of \(SDKModule.listText))", kind: .missingField)
            return nil
        }
        guard case .array(let items) = value else {
            fail("/modules", "modules must be an array of module names, found \(value.typeName)", kind: .wrongType)
            return nil
        }
        if items.isEmpty {
            fail("/modules", "modules must list at least one of \(SDKModule.listText)")
            return nil
        }
        var modules: [SDKModule] = []
        var ok = true
        for (i, item) in items.enumerated() {
            let pointer = "/modules/\(i)"
            guard let name = string(item, at: pointer, name: "a module") else {
                ok = false
                continue
            }
            guard let module = SDKModule(rawValue: name) else {
                fail(
                    pointer,
                    "unknown module \"\(name)\"" + KeySuggestion.hint(for: name, in: SDKModule.allCases.map(\.rawValue))
                )
                ok = false
                continue
            }
            guard !modules.contains(module) else {
                fail(pointer, "\"\(name)\" is listed twice")
                ok = false
                continue
            }
            modules.append(module)
        }
        return ok ? modules : nil
    }
}
