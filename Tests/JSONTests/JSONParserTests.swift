import JSON
import Testing

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValueAndKeepsKeyOrder() throws {
        let value = try JSON.parse(#" {"b": [1, -2.5e2, true, false, null], "a": {"s": "x\"y\u00e9\ud83d\ude00"}} "#)
        #expect(value.objectValue?.keys == ["b", "a"])
        #expect(value["b"] == [1, -250, true, false, nil])
        #expect(value["a"]?["s"]?.stringValue == "x\"yé😀")
    }

    @Test func serializesCompactlyWithIntegralNumbersBare() {
        let value = JSON.object([("lifetime", 60), ("ratio", 0.5), ("s", "a\nb\u{1}"), ("n", nil), ("l", [])])
        #expect(value.serializedString == #"{"lifetime":60,"ratio":0.5,"s":"a\nb\u0001","n":null,"l":[]}"#)
    }

    @Test func prettySerializationRoundTrips() throws {
        let value = JSON.object([("rules", [JSON.object([("id", "r1"), ("below", "2.4.0")])]), ("empty", .object([]))])
        #expect(try JSON.parse(value.prettySerialized()) == value)
        #expect(String(decoding: value.prettySerialized(), as: UTF8.self).contains("\n  \"rules\": [\n"))
    }

    @Test(arguments: [
        ("", "empty body"), ("{", "end of input"), ("{\"a\" 1}", "expected ':'"), ("[1,]", "expected a value"),
        ("01", "leading zero"), ("\"abc", "unterminated string"), ("tru", "expected 'true'"),
        ("{} x", "after the JSON value"),
        ("\"\\x\"", "invalid escape"), ("\"\\ud800\"", "surrogate"), ("1e999", "out of range"),
        ("\"a\u{1}\"", "control character"),
    ])
    func rejectsMalformedInputWithAReason(text: String, reason: String) {
        #expect {
            _ = try JSON.parse(text)
        } throws: { error in
            String(describing: error).contains(reason)
        }
    }

    @Test func reportsLineAndColumn() {
        do {
            _ = try JSON.parse("{\n  \"a\": ,\n}")
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.line == 2)
            #expect(error.column == 8)
        }
    }

    @Test func refusesNestingDeeperThanTheLimitWithoutCrashing() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSON.parse(deep) }
        let ok = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect((try? JSON.parse(ok)) != nil)
    }

    @Test func rejectsInvalidUTF8InStrings() {
        #expect(throws: JSONSyntaxError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
        // After an escape too, and a lone continuation byte, and a truncated sequence.
        #expect(throws: JSONSyntaxError.self) { try JSON.parse([0x22, 0x5C, 0x6E, 0x61, 0xFF, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try JSON.parse([0x22, 0x61, 0x80, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try JSON.parse([0x22, 0xC3, 0x22]) }
    }

    @Test func stringsAreWrittenEscapedWhereTheyMustBe() throws {
        let text = "W/\"1\" \\ é\u{1}\t\n\r😀"
        #expect(JSON.string(text).serializedString == #""W/\"1\" \\ é\u0001\t\n\r😀""#)
        #expect(JSON.string("plain").serializedString == #""plain""#)
        #expect(try JSON.parse(JSON.string(text).serializedString) == .string(text))
    }

    /// ASCII strings are read as they stand; others are validated: both give the same text.
    @Test func readsASCIIAndOtherStringsAlike() throws {
        #expect(try JSON.parse(#"{"etag":"W/\"1a\"","n":"plain"}"#) == .object([("etag", "W/\"1a\""), ("n", "plain")]))
        #expect(
            try JSON.parse(Array(#"["café","\u00e9t\u00e9","\ud83d\ude00 ok","a\tb"]"#.utf8)) == [
                "café", "été", "😀 ok", "a\tb",
            ]
        )
        #expect(try JSON.parse([0x22, 0xC3, 0xA9, 0x5C, 0x6E, 0x22]) == .string("é\n"))
    }

    /// As the YAML reader refuses them (a JSON config once said two things and meant the last).
    @Test func aRepeatedMemberNameIsRefusedWhereItRepeats() {
        #expect {
            try JSON.parse(Array("{\"a\":1,\n \"a\":2}".utf8))
        } throws: { error in
            guard let error = error as? JSONSyntaxError else { return false }
            return error.message == "duplicate member name \"a\"" && error.line == 2 && error.column == 2
        }
        #expect(throws: JSONSyntaxError.self) { try JSON.parse(#"[{"x":{"b":1,"b":1}}]"#) }
        #expect((try? JSON.parse(#"{"a":{"a":1},"b":{"a":2}}"#)) != nil, "the same name in other objects is fine")
    }
}
