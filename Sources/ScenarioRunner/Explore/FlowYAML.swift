import JSON

/// JSON values written as one-line YAML flow text, the way scenario files are written by hand:
/// `{name: r1, type: required_update, below: "2.0.0"}`. Words stay bare; anything YAML could
/// read as another type (versions, `yes`, times) is quoted.
///
/// ```swift
/// FlowYAML.text(.object([("below", .string("2.0.0"))]))   // {below: "2.0.0"}
/// FlowYAML.duration(5_400_000, signed: true)              // +1h30m
/// ```
enum FlowYAML {
    static func text(_ value: JSON) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n):
            if let i = value.intValue { return String(i) }
            return String(n)
        case .string(let s): return scalar(s)
        case .array(let items): return "[" + items.map(text).joined(separator: ", ") + "]"
        case .object(let o):
            return "{" + o.map { "\(scalar($0.key)): \(text($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    /// A word of letters, digits, `_`, `-` and `.` (a spec row id) starting with a letter, that YAML reads as that text; others are quoted.
    static func scalar(_ s: String) -> String {
        let reserved: Set<String> = ["null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"]
        let plain =
            !s.isEmpty && !reserved.contains(s.lowercased())
            && s.unicodeScalars.first.map { ("a"..."z").contains($0) || ("A"..."Z").contains($0) } == true
            && s.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                    || $0 == "-" || $0 == "."
            }
        return plain ? s : JSON.string(s).serializedString
    }

    /// `90s`, `1h30m`, `2d`; with `signed` a leading `+` or `-` (relative times, clock offsets).
    static func duration(_ milliseconds: Int64, signed: Bool) -> String {
        var rest = abs(milliseconds)
        var out = signed ? (milliseconds < 0 ? "-" : "+") : ""
        if rest == 0 { return out + "0s" }
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)] {
            if rest >= size {
                out += "\(rest / size)\(unit)"
                rest %= size
            }
        }
        return out
    }
}
