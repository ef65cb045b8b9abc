import Testing

@testable import ReleaseControl

/// Identifiers are printable text: C0 controls, DEL and C1 controls are refused wherever they
/// sit, and every other character is taken, ASCII or not.
@Suite struct IdentifierTests {
    @Test func printableTextIsAnIdentifier() {
        for text in ["", "r12", "fcm-phone", String(repeating: "a1", count: 32), "café", "日本-😀", "~!@# $%"] {
            #expect(Identifier.problem(text) == nil, "\(text)")
        }
    }

    @Test func aControlCharacterIsNamedWithItsByteOffset() {
        let cases: [(String, String)] = [
            ("abc\u{0}x", "U+0000 at byte 3"), ("\u{1F}", "U+001F at byte 0"), ("tok\u{7F}", "U+007F at byte 3"),
            ("é\u{85}", "U+0085 at byte 2"), ("日\u{9F}", "U+009F at byte 3"), ("a\nb", "U+000A at byte 1"),
        ]
        for (text, named) in cases {
            #expect(
                Identifier.problem(text) == "holds a control character (\(named)); identifiers are printable text",
                "\(text.unicodeScalars.map(\.value))"
            )
        }
    }
}
