/// A position in a YAML (or JSON) source, 1-based, as editors show it.
///
/// ```swift
/// let doc = try YAML.parse(Array("a:\n  b: 1\n".utf8))
/// doc.mark(for: "/a/b")   // YAMLMark(line: 2, column: 6)
/// ```
public struct YAMLMark: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (lhs: YAMLMark, rhs: YAMLMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    /// `line:column`, ready to follow a file name.
    public var description: String { "\(line):\(column)" }
}
