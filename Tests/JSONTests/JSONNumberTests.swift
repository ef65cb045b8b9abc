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

    /// Integral numbers are written digit by digit, not formatted through a String: the same text
    /// `String(Int64)` gives, at the edges of the integer range and of where fractions begin.
    @Test func integersAreWrittenAsTheirDecimalText() {
        let values: [Int64] = [
            0, 1, -1, 9, 10, -10, 60, 99, 100, 1_250, -1_250, 86_400, 999_999_999_999_999, -999_999_999_999_999,
            1_000_000_000_000_000, 99_999_999_999_999_999, .max, .min, .max - 1, .min + 1,
        ]
        for value in values {
            var out: [UInt8] = [UInt8(ascii: "[")]
            JSON.writeInteger(value, into: &out)
            #expect(out == Array("[\(value)".utf8), "\(value)")
        }
        for value in values where value.magnitude < 1_000_000_000_000_000 {
            #expect(JSON.number(Double(value)).serialized() == Array(String(value).utf8), "\(value)")
        }
        #expect(JSON.number(-0.0).serialized() == Array("0".utf8))
        #expect(JSON.number(1e15).serialized() == Array("1000000000000000.0".utf8))  // past 1e15: a Double
        #expect(JSON.number(0.5).serialized() == Array("0.5".utf8))
        #expect(JSON.array([1, -2, 3.25]).serialized() == Array("[1,-2,3.25]".utf8))
    }
}
