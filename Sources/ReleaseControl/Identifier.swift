/// The one rule every identifier follows, wherever it arrives (a path, a snapshot, a config
/// file): no control characters. A NUL once truncated push tokens in the state file, so two
/// tokens became one after a restart; other controls make ids that no terminal shows right.
///
/// ```swift
/// Identifier.problem("abc")        // nil
/// Identifier.problem("abc\u{0}x")  // "holds a control character (U+0000 at byte 3); ..."
/// ```
public enum Identifier {
    /// The largest number an id may carry: rule `r<n>`, change, push and cursor ids alike. Exact
    /// as a JSON number (below 2⁵³) and far from `Int.max`, so `next = highest + 1` never
    /// overflows, whatever a snapshot, a config file or a state file says. Ids past it are refused
    /// where they are read (a 422); a project that has used them all refuses new ones.
    public static let maximumNumber = 1_000_000_000_000_000

    /// Why `text` cannot be an identifier, or nil when it can. Refuses C0 controls, DEL and
    /// C1 controls (U+0080–U+009F).
    public static func problem(_ text: String) -> String? {
        // Printable ASCII (most ids and every push token) has no control character: one pass
        // over the bytes, not the Unicode scalars (a 64-digit token cost ~2.7k instructions).
        var contiguous = text
        if contiguous.withUTF8({ $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }) { return nil }
        var offset = 0
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || (0x7F...0x9F).contains(value) {
                let hex = String(value, radix: 16, uppercase: true)
                let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                return "holds a control character (\(code) at byte \(offset)); identifiers are printable text"
            }
            offset += UTF8.width(scalar)
        }
        return nil
    }
}
