import JSON
import ScenarioLanguage

/// Partial, readable matching of what a scenario expects against what it sees.
///
/// - objects: only the expected keys are compared (a missing key reads as null, or 0 for counts);
/// - a number against a list compares the list's length (`maintenance: 1`);
/// - text `">= 3"`, `"> 3"`, `"<= 3"`, `"< 3"`, `"!= 3"` compare numbers;
/// - `present` (anything but null), `absent` (null or missing), `any`.
enum Matcher {
    /// Nil when `seen` satisfies `expected`, else "path: expected X, seen Y".
    static func mismatch(_ expected: JSON, _ seen: JSON?, path: String) -> String? {
        // Described only on a mismatch: a fleet's expectations match thousands of whole states.
        func fail(_ want: String) -> String {
            "\(path.isEmpty ? "value" : path): expected \(want), seen \(seen.map(describe) ?? "nothing")"
        }
        switch expected {
        case .string(let s):
            switch s {
            case "any": return nil
            case "present": return seen == nil || seen == .null ? fail("a value") : nil
            case "absent": return seen == nil || seen == .null ? nil : fail("nothing")
            default: break
            }
            if let (op, bound) = comparison(s) {
                guard let n = number(of: seen) else { return fail(s) }
                let ok: Bool
                switch op {
                case ">=": ok = n >= bound
                case ">": ok = n > bound
                case "<=": ok = n <= bound
                case "<": ok = n < bound
                default: ok = n != bound
                }
                return ok ? nil : fail(s)
            }
            return seen == .string(s) ? nil : fail(describe(expected))
        case .number(let want):
            if let n = number(of: seen) ?? ((seen == nil || seen == .null) && want == 0 ? 0 : nil), n == want {
                return nil
            }
            return fail(describe(expected))
        case .null:
            return seen == nil || seen == .null ? nil : fail("null")
        case .bool:
            return seen == expected ? nil : fail(describe(expected))
        case .array(let items):
            guard case .array(let got)? = seen else { return fail(describe(expected)) }
            guard got.count == items.count else { return fail("\(items.count) item(s) \(describe(expected))") }
            for (i, item) in items.enumerated() {
                if let m = mismatch(item, got[i], path: "\(path)[\(i)]") { return m }
            }
            return nil
        case .object(let o):
            guard case .object(let got)? = seen else { return fail(describe(expected)) }
            for (k, v) in o {
                if let m = mismatch(v, got[k], path: path.isEmpty ? k : "\(path).\(k)") { return m }
            }
            return nil
        }
    }

    /// Nil when the device state `seen` has every field of `expected` as it expects, else the
    /// first that differs, named by its key: what ``mismatch(_:_:path:)`` says of a state answer
    /// object, for a state read either way (``DeviceStateReading``).
    static func mismatch(_ expected: JSONObject, in seen: DeviceStateReading) -> String? {
        for (key, value) in expected {
            if let m = mismatch(value, seen[key], path: key) { return m }
        }
        return nil
    }

    /// A number, or a list's length, or nil.
    private static func number(of value: JSON?) -> Double? {
        switch value {
        case .number(let n)?: return n
        case .array(let a)?: return Double(a.count)
        default: return nil
        }
    }

    private static func comparison(_ s: String) -> (String, Double)? {
        // Most expected texts are values (`none`, a rule id): they start with no operator.
        guard let first = s.utf8.first,
            first == UInt8(ascii: ">") || first == UInt8(ascii: "<") || first == UInt8(ascii: "!")
        else { return nil }
        for op in operators where s.hasPrefix(op) {
            guard let n = Double(String(s.dropFirst(op.count)).trimmingSpaces()) else { return nil }
            return (op, n)
        }
        return nil
    }

    private static let operators = [">=", "<=", "!=", ">", "<"]

    static func describe(_ value: JSON) -> String {
        let text = value.serializedString
        return text.count > 160 ? String(text.prefix(157)) + "..." : text
    }
}
