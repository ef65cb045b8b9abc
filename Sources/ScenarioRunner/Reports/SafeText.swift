/// The one place text from scenario files, devices and adapters is made safe to show: for a
/// terminal (no escape sequence, bell or carriage return reaches it raw) and for XML and HTML
/// (escaped, and no character XML 1.0 forbids, so the JUnit file stays well-formed).
///
/// A character that cannot be shown as it is appears as a visible escape, `\u{1B}`, so a
/// reader still sees that it was there and which it was.
///
/// ```swift
/// SafeText.terminal("red\u{1B}[31m")   // #"red\u{1B}[31m"#: the ESC written out, not sent
/// SafeText.xml("a < b\u{FFFF}")         // #"a &lt; b\u{FFFF}"#: well-formed XML
/// ```
public enum SafeText {
    /// `text` for a terminal: newlines and tabs stay; other C0 controls (ESC, BEL, CR, …),
    /// DEL, the C1 controls (U+0080–U+009F, NEL among them) and the bidirectional overrides
    /// that reorder what a terminal shows are written out as `\u{…}`.
    public static func terminal(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { !showsInTerminal($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if showsInTerminal(scalar) {
                out.append(scalar)
            } else {
                out.append(contentsOf: written(scalar).unicodeScalars)
            }
        }
        return String(out)
    }

    /// `text` escaped for XML or HTML text and attribute values (`&`, `<`, `>`, both quotes),
    /// with CR kept as `&#13;`, and each character XML 1.0 forbids (C0 controls but tab and
    /// newline, U+FFFE, U+FFFF) and each one it discourages (DEL, C1) written out as `\u{…}`.
    public static func xml(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\r": out += "&#13;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE
                    || scalar.value == 0xFFFF
                {
                    out += written(scalar)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    static func showsInTerminal(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return true
        case 0x00..<0x20, 0x7F...0x9F: return false
        case 0x202A...0x202E, 0x2066...0x2069: return false  // bidi embeddings, overrides, isolates
        default: return true
        }
    }

    /// `\u{1B}`: the scalar's code, as Swift writes it.
    static func written(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\u{" + String(repeating: "0", count: max(0, 2 - hex.count)) + hex + "}"
    }
}
