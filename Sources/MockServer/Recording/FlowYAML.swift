import JSON

/// JSON written as YAML flow style that reads as a person would write it: `{name: r1, below: "2.4.0"}`.
/// A string stays plain only when YAML would read it back as the same string (not a number, a
/// boolean, null, or something with YAML syntax in it); otherwise it is double-quoted, which YAML
/// reads as JSON does. Versions are always quoted, as Scenarios/README.md asks.
///
/// ```swift
/// FlowYAML.text(.object([("type", "required_update"), ("below", "2.4.0")]))   // {type: required_update, below: "2.4.0"}
/// ```
enum FlowYAML {
    static func text(_ value: JSON) -> String {
        switch value {
        case .string(let s): return scalar(s)
        case .array(let items): return "[" + items.map(text).joined(separator: ", ") + "]"
        case .object(let o):
            return "{" + o.pairs.map { "\(scalar($0.key)): \(text($0.value))" }.joined(separator: ", ") + "}"
        default: return value.serializedString
        }
    }

    static let words: Set<String> = ["true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"]

    static func scalar(_ s: String) -> String {
        guard let first = s.first, first.isLetter || first == "_" || first == "+" || first == "-" && s.count > 1,
            s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.+/".contains($0)) }),
            !words.contains(s.lowercased()), !s.contains(where: \.isNumber) || first.isLetter && !s.contains(".")
        else { return JSON.string(s).serializedString }
        return s
    }
}
