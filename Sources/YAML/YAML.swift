import CYAML
import JSON

/// Reads YAML through libyaml into ``JSON`` values, keeping a `line:column` for every node.
///
/// What it accepts, and why:
/// - one document per source; a second document is an error (a config or scenario is one thing).
///   An empty source is the document `null`.
/// - scalars resolve per the YAML 1.2 core schema (see ``YAMLScalar``): `yes`/`no` stay strings,
///   quoted scalars are always strings, `.inf`/`.nan` stay strings.
/// - mapping keys must be scalars and unique (a repeated key is almost always a mistake).
/// - anchors, aliases and merge keys (`<<: *base`) work; an alias copies the anchored value,
///   bounded by ``maximumNodes`` in total and by ``maximumAliasBytes`` of copies, so an "alias
///   bomb" of many small nodes or of one large value fails fast instead of eating memory.
/// - nesting deeper than ``maximumDepth`` is an error.
///
/// ```swift
/// let doc = try YAML.parse(Array("below: \"2.4.0\"\ncount: 3\n".utf8))
/// doc.json["count"]?.intValue     // 3
/// doc.mark(for: "/below")         // 1:8
/// ```
public enum YAML {
    /// Most nodes a document may expand to, counting each alias's copy in full.
    public static let maximumNodes = 1_000_000
    /// Most bytes (scalars and keys) all aliases together may copy: an alias costs what it
    /// expands to, so one large value aliased many times is refused as it is read.
    public static let maximumAliasBytes = 16 << 20
    public static let maximumDepth = 256

    public static func parse(_ bytes: [UInt8]) throws(YAMLError) -> YAMLDocument {
        let result: Result<YAMLDocument, YAMLError> = bytes.withUnsafeBufferPointer { buffer in
            var builder = YAMLBuilder()
            return builder.run(buffer)
        }
        return try result.get()
    }

    public static func parse(_ text: String) throws(YAMLError) -> YAMLDocument {
        try parse(Array(text.utf8))
    }
}
