import JSON

/// A parsed YAML document: its value as ``JSON`` plus where every node came from.
///
/// Positions are keyed by JSON Pointer (RFC 6901): `""` is the root, `/rules/0/below` a
/// nested value. Nodes copied by an alias have no marks of their own; ``mark(for:)``
/// falls back to the nearest ancestor that has one, so every pointer gets a position.
///
/// ```swift
/// let doc = try YAML.parse(Array("devices:\n  - platform: ios\n".utf8))
/// doc.json["devices"]?.arrayValue?.count     // 1
/// doc.mark(for: "/devices/0/platform")       // 2:15 (the value)
/// doc.keyMark(for: "/devices/0/platform")    // 2:5  (the key)
/// ```
public struct YAMLDocument: Sendable {
    public var json: JSON
    /// Start of each value node, by JSON Pointer.
    public var marks: [String: YAMLMark]
    /// Start of each mapping key, by the JSON Pointer of its value.
    public var keyMarks: [String: YAMLMark]

    public init(json: JSON, marks: [String: YAMLMark] = [:], keyMarks: [String: YAMLMark] = [:]) {
        self.json = json
        self.marks = marks
        self.keyMarks = keyMarks
    }

    /// Where the value at `pointer` starts, or where its nearest marked ancestor starts.
    public func mark(for pointer: String) -> YAMLMark {
        var p = pointer
        while true {
            if let m = marks[p] { return m }
            guard let slash = p.lastIndex(of: "/") else { return YAMLMark(line: 1, column: 1) }
            p = String(p[..<slash])
        }
    }

    /// Where the key naming the value at `pointer` starts (the value's mark for array items and the root).
    public func keyMark(for pointer: String) -> YAMLMark {
        keyMarks[pointer] ?? mark(for: pointer)
    }

    /// `pointer` extended by one reference token, escaped per RFC 6901.
    public static func pointer(_ base: String, _ token: String) -> String {
        guard token.contains("~") || token.contains("/") else { return base + "/" + token }
        var escaped = ""
        for ch in token {
            switch ch {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(ch)
            }
        }
        return base + "/" + escaped
    }

    public static func pointer(_ base: String, _ index: Int) -> String { base + "/" + String(index) }
}
