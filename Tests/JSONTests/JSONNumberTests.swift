import JSON
import Testing

/// Numbers as the parser reads them: integers of up to 15 digits are summed in place, every
/// other number is read as text; both give what `Double(text)` gives.
@Suite struct JSONNumberTests {
    static let texts = [
        "0", "-0", "7", "-7", "60", "300", "86400", "123456789012345", "-999999999999999",
        "1234567890123456", "99999999999999999999", "9007199254740993", "0.5", "-2.5e2", "1e3", "1E+3",
        "10e-1", "0.1", "123456789012345.5",
    ]

    @Test func everyNumberIsTheDoubleItsTextReadsAs() throws {
        for text in Self.texts {
            let expected = try #require(Double(text))
            let parsed = try JSON.parse(text)
            guard case .number(let value) = parsed else {
                Issue.record("\(text) read as \(parsed)")
                continue
            }
            #expect(value == expected, "\(text)")
            #expect(value.sign == expected.sign, "\(text): the sign of zero")
            #expect(try JSON.parse("[\(text)]") == .array([.number(expected)]), "\(text) in an array")
            #expect(try JSON.parse(#"{"n":\#(text)}"#)["n"] == .number(expected), "\(text) in an object")
        }
    }

    @Test func aNumberWithALeadingZeroOrNoDigitsIsStillRefused() {
        for text in ["01", "-01", "-", "1.", "1e", "-a", "00"] {
            #expect(throws: JSONSyntaxError.self, "\(text)") { try JSON.parse(text) }
        }
    }
}
