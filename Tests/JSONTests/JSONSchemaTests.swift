import JSON
import TestSupport
import Testing

/// The validator adapter-check judges answers with: each keyword it implements can say no, and
/// a keyword it does not implement is a problem rather than a silent pass.
@Suite struct JSONSchemaTests {
    static let schema = JSONSchema(
        document: .object([
            (
                "$defs",
                .object([
                    ("time", .object([("type", "string"), ("pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}T")])),
                    (
                        "thing",
                        .object([
                            ("type", "object"), ("required", ["name", "count"]), ("additionalProperties", false),
                            (
                                "properties",
                                .object([
                                    ("name", .object([("type", "string"), ("minLength", 1)])),
                                    ("count", .object([("type", "integer"), ("minimum", 0), ("maximum", 10)])),
                                    ("kind", .object([("enum", ["a", "b"])])),
                                    (
                                        "at",
                                        .object([
                                            (
                                                "anyOf",
                                                [.object([("$ref", "#/$defs/time")]), .object([("type", "null")])]
                                            )
                                        ])
                                    ),
                                    ("tags", .object([("type", "array"), ("items", .object([("type", "string")]))])),
                                    ("ok", .object([("const", true)])),
                                ])
                            ),
                        ])
                    ),
                    ("odd", .object([("type", "string"), ("format", "date-time")])),
                ])
            )
        ])
    )

    func problems(_ text: String) -> [String] {
        guard let value = try? JSON.parse(Array(text.utf8)) else { return ["unparsable test input \(text)"] }
        return Self.schema.problems(in: value, against: "thing")
    }

    @Test func aValueThatMatchesHasNoProblems() {
        #expect(
            problems(
                #"{"name": "x", "count": 3, "kind": "a", "at": "2026-12-02T09:00:00.000Z", "tags": ["t"], "ok": true}"#
            ) == []
        )
        #expect(problems(#"{"name": "x", "count": 0, "at": null}"#) == [])
    }

    @Test func eachKeywordCanSayNo() {
        #expect(problems(#"{"name": "x"}"#) == ["/count: missing (required)"])
        #expect(problems(#"{"name": "x", "count": 1.5}"#) == ["/count: expected integer, found number 1.5"])
        #expect(problems(#"{"name": "x", "count": 11}"#) == ["/count: 11 is above the maximum 10"])
        #expect(problems(#"{"name": "x", "count": -1}"#) == ["/count: -1 is below the minimum 0"])
        #expect(problems(#"{"name": "", "count": 1}"#) == ["/name: shorter than 1 characters"])
        #expect(problems(#"{"name": "x", "count": 1, "kind": "c"}"#) == [#"/kind: "c" is not one of "a", "b""#])
        #expect(
            problems(#"{"name": "x", "count": 1, "at": "yesterday"}"#) == [
                #"/at: "yesterday" does not match ^[0-9]{4}-[0-9]{2}-[0-9]{2}T"#
            ]
        )
        #expect(problems(#"{"name": "x", "count": 1, "tags": [1]}"#) == ["/tags/0: expected string, found integer 1"])
        #expect(problems(#"{"name": "x", "count": 1, "ok": false}"#) == ["/ok: expected true, found false"])
        #expect(
            problems(#"{"name": "x", "count": 1, "cuont": 2}"#) == ["/cuont: unknown field (did you mean 'count'?)"]
        )
        #expect(problems(#"["x"]"#) == [#"(value): expected object, found array ["x"]"#])
    }

    @Test func aKeywordTheValidatorLacksIsReportedNotIgnored() {
        #expect(
            Self.schema.problems(in: "anything", against: "odd") == [
                "(value): the schema uses 'format', which this validator does not implement"
            ]
        )
        #expect(Self.schema.problems(in: 1, against: "nope") == ["(schema): no definition 'nope'"])
    }

    /// The value is another program's: a pattern is compiled once per call, not per string, and
    /// at most 100 problems are listed (16,000 capabilities took 7 s and listed every one).
    @Test func manyItemsCostOnePatternAndABoundedList() {
        let items = JSON.array((0..<16_000).map { .string("bad \($0)") })
        let time = JSON.object([("type", "string"), ("pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}T")])
        let list = JSON.object([("type", "array"), ("items", .object([("$ref", "#/$defs/time")]))])
        let schema = JSONSchema(document: .object([("$defs", .object([("time", time), ("list", list)]))]))
        // CPU time, not wall time: the bound is on the work, which a loaded machine only delays.
        let (problems, cpu) = ThreadCPUTime.of { schema.problems(in: items, against: "list") }
        #expect(problems.count == JSONSchema.maximumProblems, "\(problems.count)")
        #expect(cpu < .seconds(3), "\(cpu)")
    }
}
