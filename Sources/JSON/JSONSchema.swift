/// A JSON Schema (draft 2020-12) validator for the subset the project's own schemas use:
/// `type`, `enum`, `const`, `properties`, `required`, `additionalProperties`, `items`,
/// `minimum`, `maximum`, `minLength`, `pattern`, `anyOf`, `oneOf`, `allOf` and local `$ref`s
/// (`#/$defs/name`). A keyword outside the subset is reported as a problem of the schema, never
/// ignored, so a schema can't silently check less than it says.
///
/// ```swift
/// let schema = try JSONSchema(document: try JSON.parse(text))
/// schema.problems(in: answer, against: "answer.state")   // ["/checks: expected integer, found string"]
/// ```
public struct JSONSchema: Sendable {
    public let document: JSON

    static let keywords: Set<String> = [
        "$schema", "$id", "$defs", "$ref", "title", "description", "type", "enum", "const", "properties", "required",
        "additionalProperties", "items", "minimum", "maximum", "minLength", "pattern", "anyOf", "oneOf", "allOf",
    ]

    public init(document: JSON) { self.document = document }

    /// The names under `$defs`.
    public var definitions: [String] { document["$defs"]?.objectValue?.keys ?? [] }

    /// Every problem of `value` against the definition `name`, each "pointer: what is wrong".
    public func problems(in value: JSON, against name: String) -> [String] {
        guard let schema = document["$defs"]?[name] else { return ["(schema): no definition '\(name)'"] }
        var out: [String] = []
        check(value, schema, at: "", into: &out, cache: PatternCache())
        return out
    }

    /// Most problems one call reports: the value is another program's (an adapter's answer),
    /// so the work and the list stay bounded however many of its items are wrong.
    public static let maximumProblems = 100

    /// Each pattern compiled once per call, not once per string it checks (16,000 strings
    /// against one pattern took 7 s).
    final class PatternCache {
        private var compiled: [String: Regex<AnyRegexOutput>?] = [:]
        func regex(_ pattern: String) -> Regex<AnyRegexOutput>? {
            if let known = compiled[pattern] { return known }
            let regex = try? Regex(pattern)
            compiled[pattern] = regex
            return regex
        }
    }

    private func resolve(_ schema: JSON) -> JSON? {
        guard let ref = schema["$ref"]?.stringValue else { return schema }
        guard ref.hasPrefix("#/$defs/") else { return nil }
        return document["$defs"]?[String(ref.dropFirst("#/$defs/".count))]
    }

    private static func typeName(of value: JSON) -> [String] {
        switch value {
        case .null: return ["null"]
        case .bool: return ["boolean"]
        case .string: return ["string"]
        case .array: return ["array"]
        case .object: return ["object"]
        case .number(let n): return n.rounded() == n && abs(n) < 9e15 ? ["integer", "number"] : ["number"]
        }
    }

    private func check(
        _ value: JSON,
        _ written: JSON,
        at pointer: String,
        into out: inout [String],
        cache: PatternCache
    ) {
        guard out.count < Self.maximumProblems else { return }
        let here = pointer.isEmpty ? "(value)" : pointer
        guard let schema = resolve(written), case .object(let keywords) = schema else {
            out.append("\(here): the schema's \(written["$ref"]?.stringValue ?? "entry") does not resolve")
            return
        }
        for key in keywords.keys where !Self.keywords.contains(key) {
            out.append("\(here): the schema uses '\(key)', which this validator does not implement")
        }
        if let types = keywords["type"] {
            let allowed = types.arrayValue?.compactMap(\.stringValue) ?? types.stringValue.map { [$0] } ?? []
            let actual = Self.typeName(of: value)
            if !allowed.contains(where: actual.contains) {
                out.append(
                    "\(here): expected \(allowed.joined(separator: " or ")), found \(actual[0]) \(Self.short(value))"
                )
                return
            }
        }
        if let options = keywords["enum"]?.arrayValue, !options.contains(value) {
            out.append("\(here): \(Self.short(value)) is not one of \(options.map(Self.short).joined(separator: ", "))")
        }
        if let constant = keywords["const"], constant != value {
            out.append("\(here): expected \(Self.short(constant)), found \(Self.short(value))")
        }
        if let n = value.numberValue {
            if let min = keywords["minimum"]?.numberValue, n < min {
                out.append("\(here): \(Self.short(value)) is below the minimum \(Self.short(.number(min)))")
            }
            if let max = keywords["maximum"]?.numberValue, n > max {
                out.append("\(here): \(Self.short(value)) is above the maximum \(Self.short(.number(max)))")
            }
        }
        if let text = value.stringValue {
            if let min = keywords["minLength"]?.intValue, text.count < min {
                out.append("\(here): shorter than \(min) characters")
            }
            if let pattern = keywords["pattern"]?.stringValue {
                if let regex = cache.regex(pattern) {
                    if (try? regex.firstMatch(in: text)) == nil {
                        out.append("\(here): \(Self.short(value)) does not match \(pattern)")
                    }
                } else {
                    out.append("\(here): the schema's pattern \(pattern) does not compile")
                }
            }
        }
        if case .object(let object) = value {
            let properties = keywords["properties"]?.objectValue ?? JSONObject()
            for name in keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
                out.append("\(pointer)/\(FieldProblem.escape(name)): missing (required)")
            }
            for (key, item) in object {
                let at = pointer + "/" + FieldProblem.escape(key)
                if let property = properties[key] {
                    check(item, property, at: at, into: &out, cache: cache)
                } else if let extra = keywords["additionalProperties"] {
                    if extra == .bool(false) {
                        out.append("\(at): unknown field" + KeySuggestion.hint(for: key, in: properties.keys))
                    } else if extra != .bool(true) {
                        check(item, extra, at: at, into: &out, cache: cache)
                    }
                }
            }
        }
        if case .array(let items) = value, let itemSchema = keywords["items"] {
            for (i, item) in items.enumerated() {
                check(item, itemSchema, at: "\(pointer)/\(i)", into: &out, cache: cache)
            }
        }
        if let all = keywords["allOf"]?.arrayValue {
            for part in all { check(value, part, at: pointer, into: &out, cache: cache) }
        }
        for (keyword, needed) in [("anyOf", 1...Int.max), ("oneOf", 1...1)] {
            guard let options = keywords[keyword]?.arrayValue else { continue }
            var tries: [[String]] = []
            for option in options {
                var problems: [String] = []
                check(value, option, at: pointer, into: &problems, cache: cache)
                tries.append(problems)
            }
            let matching = tries.filter(\.isEmpty).count
            if !needed.contains(matching) {
                if matching == 0 {
                    // The closest option's problems say most about what to fix.
                    out +=
                        tries.min { $0.count < $1.count } ?? ["\(here): matches none of the \(options.count) options"]
                } else {
                    out.append("\(here): matches \(matching) of the options, \(keyword) wants exactly one")
                }
            }
        }
    }

    /// A value in at most 60 characters, for messages.
    public static func short(_ value: JSON) -> String {
        let text = value.serializedString
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }
}
