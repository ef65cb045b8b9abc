import JSON

/// JSON written as YAML flow style that reads as a person would write it: `{name: r1, below: "2.4.0"}`.
/// A string stays plain only when YAML would read it back as the same string (not a number, a
/// boolean, null, or something with YAML syntax in it); otherwise it is double-quoted with
/// ``quoted(_:)``, which escapes whatever YAML would not read back as written. Versions are always quoted, as Scenarios/README.md asks.
///
/// Recorded sessions and the files `explore` writes both go through it, so a scenario file is
/// written one way.
///
/// ```swift
/// FlowYAML.text(.object([("type", "required_update"), ("below", "2.4.0")]))   // {type: required_update, below: "2.4.0"}
/// FlowYAML.duration(5_400_000, signed: true)                                  // +1h30m
/// ```
public enum FlowYAML {
    public static func text(_ value: JSON) -> String {
        switch value {
        case .string(let s): return scalar(s)
        case .array(let items): return "[" + items.map(text).joined(separator: ", ") + "]"
        case .object(let o):
            return "{" + o.pairs.map { "\(scalar($0.key)): \(text($0.value))" }.joined(separator: ", ") + "}"
        default: return value.serializedString
        }
    }

    static let words: Set<String> = ["true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"]

    public static func scalar(_ s: String) -> String {
        guard let first = s.first, first.isLetter || first == "_" || first == "+" || first == "-" && s.count > 1,
            s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.+/".contains($0)) }),
            !words.contains(s.lowercased()), !s.contains(where: \.isNumber) || first.isLetter && !s.contains(".")
        else { return quoted(s) }
        return s
    }

    /// `s` as a YAML double-quoted scalar that reads back as exactly `s`: every character YAML
    /// may not hold raw (C0 and C1 controls, DEL, U+FFFE/FFFF) or would read as a line break
    /// or drop (NEL, U+2028/2029, a BOM) is a `\u` escape, so the file stays readable and each
    /// string round-trips.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                let v = scalar.value
                if v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || v == 0xFEFF || v == 0xFFFE
                    || v == 0xFFFF
                {
                    let hex = String(v, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `90s`, `1h30m`, `2d`, `1500ms`: a duration as steps write it; with `signed` a leading `+`
    /// or `-` (times relative to time 0, clock offsets).
    public static func duration(_ milliseconds: Int64, signed: Bool) -> String {
        var rest = milliseconds.magnitude
        var out = signed ? (milliseconds < 0 ? "-" : "+") : ""
        if rest == 0 { return out + "0s" }
        for (unit, size) in [("d", UInt64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)]
        where rest >= size {
            out += "\(rest / size)\(unit)"
            rest %= size
        }
        return out
    }
}
