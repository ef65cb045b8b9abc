import JSON
import TestSupport
import Testing

@testable import YAML

@Suite struct YAMLParseTests {
    @Test func mappingsSequencesAndScalarsBecomeJSON() throws {
        let doc = try YAML.parse(
            """
            name: push loop
            count: 3
            ratio: 0.5
            on: yes
            empty:
            tilde: ~
            flag: true
            list: [1, "2", three]
            nested:
              - a: 1
              - b: null
            """
        )
        #expect(
            doc.json
                == .object([
                    ("name", "push loop"), ("count", 3), ("ratio", 0.5), ("on", "yes"), ("empty", nil), ("tilde", nil),
                    ("flag", true), ("list", [1, "2", "three"]),
                    ("nested", [.object([("a", 1)]), .object([("b", nil)])]),
                ])
        )
    }

    @Test func quotedScalarsStayStrings() throws {
        let doc = try YAML.parse("a: \"1\"\nb: 'true'\nc: \"null\"\nd: |\n  12\n")
        #expect(doc.json == .object([("a", "1"), ("b", "true"), ("c", "null"), ("d", "12\n")]))
    }

    @Test func versionsAndTimesStayStringsButTwoPartVersionsAreNumbers() throws {
        let doc = try YAML.parse(
            "a: 2.4.0\nb: 2026-12-02T11:00:00.000Z\nc: 1.10\nd: 0x1F\ne: 0o17\nf: 010\ng: -.5\nh: .inf\ni: 1e3\n"
        )
        #expect(doc.json["a"] == "2.4.0")
        #expect(doc.json["b"] == "2026-12-02T11:00:00.000Z")
        #expect(doc.json["c"] == 1.1)
        #expect(doc.json["d"] == 31)
        #expect(doc.json["e"] == 15)
        #expect(doc.json["f"] == 10)
        #expect(doc.json["g"] == -0.5)
        #expect(doc.json["h"] == ".inf")
        #expect(doc.json["i"] == 1000)
    }

    @Test func explicitTagsForceOrCheckTheType() throws {
        let doc = try YAML.parse("a: !!str 42\nb: !!int \"42\"\nc: !!float 3\n")
        #expect(doc.json == .object([("a", "42"), ("b", 42), ("c", 3)]))
        #expect(throws: YAMLError.self) { try YAML.parse("a: !!int x\n") }
        #expect(throws: YAMLError.self) { try YAML.parse("a: !custom x\n") }
    }

    @Test func marksPointAtValuesAndKeys() throws {
        let doc = try YAML.parse(
            """
            devices:
              - platform: ios
                version: "2.3.0"
            steps:
              - launch: phone
            """
        )
        #expect(doc.mark(for: "") == YAMLMark(line: 1, column: 1))
        #expect(doc.mark(for: "/devices") == YAMLMark(line: 2, column: 3))
        #expect(doc.mark(for: "/devices/0") == YAMLMark(line: 2, column: 5))
        #expect(doc.mark(for: "/devices/0/platform") == YAMLMark(line: 2, column: 15))
        #expect(doc.keyMark(for: "/devices/0/version") == YAMLMark(line: 3, column: 5))
        #expect(doc.mark(for: "/steps/0/launch") == YAMLMark(line: 5, column: 13))
        // Unknown pointers fall back to the nearest marked ancestor.
        #expect(doc.mark(for: "/devices/0/platform/nope") == YAMLMark(line: 2, column: 15))
    }

    @Test func pointersEscapeSlashAndTilde() throws {
        let doc = try YAML.parse("\"a/b\":\n  \"c~d\": 1\n")
        #expect(doc.mark(for: "/a~1b/c~0d") == YAMLMark(line: 2, column: 10))
    }

    @Test func anchorsAliasesAndMergeKeys() throws {
        let doc = try YAML.parse(
            """
            base: &base
              platform: ios
              version: "1.0.0"
            phone:
              <<: *base
              version: "2.0.0"
            copy: *base
            """
        )
        #expect(doc.json["phone"] == .object([("version", "2.0.0"), ("platform", "ios")]))
        #expect(doc.json["copy"] == .object([("platform", "ios"), ("version", "1.0.0")]))
    }

    @Test func aliasBombsFailFast() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...9 {
            let ref = "*a\(i - 1)"
            text += "a\(i): &a\(i) [\(Array(repeating: ref, count: 10).joined(separator: ", "))]\n"
        }
        #expect {
            try YAML.parse(text)
        } throws: { error in
            (error as? YAMLError)?.message.contains("alias bomb") == true
        }
    }

    @Test func syntaxErrorsCarryLineColumnAndLibyamlsProblem() {
        #expect {
            try YAML.parse("a: 1\nb: [1, 2\nc: 3\n")
        } throws: { error in
            guard let e = error as? YAMLError else { return false }
            return e.line >= 2 && e.message.contains("flow sequence")
        }
        #expect {
            try YAML.parse("a:\n\tb: 1\n")
        } throws: { error in
            guard let e = error as? YAMLError else { return false }
            return e.line == 2 && e.description.hasPrefix("2:")
        }
    }

    @Test func duplicateKeysAreErrorsAtTheSecondKey() {
        #expect(throws: YAMLError("duplicate key 'a'", at: YAMLMark(line: 2, column: 1))) {
            try YAML.parse("a: 1\na: 2\n")
        }
    }

    @Test func aSecondDocumentIsRejectedAndEmptyInputIsNull() throws {
        #expect(throws: YAMLError.self) { try YAML.parse("a: 1\n---\nb: 2\n") }
        #expect(try YAML.parse("").json == .null)
        #expect(try YAML.parse("# only a comment\n").json == .null)
        #expect(try YAML.parse("--- 5\n").json == 5)
    }

    @Test func complexKeysAndUnknownAliasesAreErrors() {
        #expect(throws: YAMLError.self) { try YAML.parse("? [a, b]\n: 1\n") }
        #expect(throws: YAMLError.self) { try YAML.parse("a: *nowhere\n") }
    }

    @Test func jsonIsYAML() throws {
        let doc = try YAML.parse(#"{"rules": [{"type": "maintenance", "count": 2}], "ok": false}"#)
        #expect(doc.json == .object([("rules", [.object([("type", "maintenance"), ("count", 2)])]), ("ok", false)]))
        #expect(doc.mark(for: "/rules/0/count") == YAMLMark(line: 1, column: 45))
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(throws: YAMLError.self) { try YAML.parse(text) }
    }

    @Test func invalidUTF8IsAnError() {
        #expect(throws: YAMLError.self) { try YAML.parse([0x61, 0x3A, 0x20, 0xFF, 0xFE, 0x0A]) }
    }
}

/// Mappings with many keys load in linear time (issue 12, point 3: the builder copied its
/// key set on every insert, so 20k keys took 9 s and 60k never finished).
@Suite struct YAMLManyKeysTests {
    static func mappingText(keys: Int) -> [UInt8] {
        var text = ""
        text.reserveCapacity(keys * 16)
        for i in 0..<keys { text += "key-\(i): \(i)\n" }
        return Array(text.utf8)
    }

    @Test func aSixtyThousandKeyMappingLoadsInLinearTime() throws {
        let small = Self.mappingText(keys: 3_750)
        let large = Self.mappingText(keys: 60_000)
        var loaded = JSON.null
        let growth = try ScalingProbe.growth(
            small: { _ = try YAML.parse(small) },
            large: { loaded = try YAML.parse(large).json }
        )
        #expect(loaded.objectValue?.count == 60_000)
        #expect(loaded["key-59999"] == 59_999)
        #expect(growth < 64, "16× the keys cost \(growth)× the CPU time")
    }

    @Test func duplicatesAreStillFoundInABigMapping() {
        let text = String(decoding: Self.mappingText(keys: 5_000), as: UTF8.self) + "key-17: again\n"
        #expect(throws: YAMLError.self) { try YAML.parse(text) }
    }
}
