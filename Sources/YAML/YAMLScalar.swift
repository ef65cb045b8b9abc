import JSON

/// How a scalar's text becomes a JSON value: the YAML 1.2 core schema, JSON-compatible.
///
/// Only plain (unquoted) scalars are resolved; quoted and block scalars are strings.
/// - null: empty, `~`, `null`, `Null`, `NULL`
/// - booleans: `true`/`True`/`TRUE`, `false`/`False`/`FALSE`. YAML 1.1's `yes`, `no`,
///   `on`, `off` stay strings: configs mean the word far more often than the boolean.
/// - integers: decimal with optional sign, `0x…` hexadecimal, `0o…` octal. A leading 0 is
///   decimal (`010` is 10), not 1.1's octal.
/// - floats: `1.5`, `-2e3`, `.5`. `.inf` and `.nan` stay strings: JSON has no such numbers.
///   Beware versions: `1.10` is the number 1.1; quote them (`"1.10"`).
/// - everything else (`2.4.0`, `2026-12-02T11:00:00Z`, `yes`) is a string.
enum YAMLScalar {
    static func resolvePlain(_ text: String) -> JSON {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let n = integer(text) { return .number(n) }
        if let n = float(text) { return .number(n) }
        return .string(text)
    }

    /// Resolves `text` under an explicit standard tag (`!!str`, `!!int`, …), or nil if it does not fit.
    static func resolve(_ text: String, tag: String) -> JSON? {
        switch tag {
        case "tag:yaml.org,2002:str": return .string(text)
        case "tag:yaml.org,2002:null":
            return ["", "~", "null", "Null", "NULL"].contains(text) ? .null : nil
        case "tag:yaml.org,2002:bool":
            let v = resolvePlain(text)
            if case .bool = v { return v }
            return nil
        case "tag:yaml.org,2002:int": return integer(text).map(JSON.number)
        case "tag:yaml.org,2002:float": return (integer(text) ?? float(text)).map(JSON.number)
        default: return nil
        }
    }

    static func integer(_ text: String) -> Double? {
        var s = Substring(text)
        var sign = 1.0
        if s.first == "-" || s.first == "+" {
            if s.first == "-" { sign = -1 }
            s = s.dropFirst()
        }
        guard !s.isEmpty else { return nil }
        var radix = 10
        if s.hasPrefix("0x") {
            radix = 16
            s = s.dropFirst(2)
        } else if s.hasPrefix("0o") {
            radix = 8
            s = s.dropFirst(2)
        }
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        if radix == 10, !s.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
        if let v = Int64(s, radix: radix) { return sign * Double(v) }
        if radix == 10, let d = Double(s) { return sign * d }
        return nil
    }

    static func float(_ text: String) -> Double? {
        // [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
        let b = Array(text.utf8)
        var i = 0
        func digits() -> Int {
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
            return i - start
        }
        if i < b.count, b[i] == 45 || b[i] == 43 { i += 1 }
        let whole = digits()
        var fraction = 0
        if i < b.count, b[i] == 46 {
            i += 1
            fraction = digits()
            guard whole > 0 || fraction > 0 else { return nil }
        } else if whole == 0 {
            return nil
        }
        if i < b.count, b[i] == 101 || b[i] == 69 {
            i += 1
            if i < b.count, b[i] == 45 || b[i] == 43 { i += 1 }
            guard digits() > 0 else { return nil }
        }
        guard i == b.count else { return nil }
        guard let d = Double(text), d.isFinite else { return nil }
        return d
    }
}
