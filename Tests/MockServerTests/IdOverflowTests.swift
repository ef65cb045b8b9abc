import JSON
import ReleaseControl
import Testing

@testable import MockServer

/// Ids past ``Identifier/maximumNumber`` once crashed the server (`next = highest + 1`
/// overflowed): every place an id is read refuses them with a 422, and a project that starts at
/// the largest id refuses new ones instead of trapping.
@Suite struct IdOverflowTests {
    static let intMax = "r9223372036854775807"
    static let intMaxMinusOne = "r9223372036854775806"
    static let largest = "r\(Identifier.maximumNumber)"
    static let pastLargest = "r\(Identifier.maximumNumber + 1)"

    static func snapshot(ruleId: String) -> String {
        #"{"projects": [{"key": "demo", "rules": [{"id": "\#(ruleId)", "type": "optional_update", "below": "2.0"}]}]}"#
    }

    @Test(arguments: [intMax, intMaxMinusOne, pastLargest, "r99999999999999999999999999"])
    func aSnapshotRuleIdPastTheLargestIsA422(id: String) throws {
        let h = try Harness()
        let response = h.call("PUT", "/admin/state", body: Self.snapshot(ruleId: id))
        #expect(response.status == 422)
        #expect(response.firstPointer == "/projects/0/rules/0/id")
        #expect(h.post("/admin/projects/demo/rules", #"{"type": "optional_update", "below": "3.0"}"#).status == 201)
    }

    @Test(arguments: ["rule", "lifted"])
    func aChangeNamingARuleIdPastTheLargestIsA422(field: String) throws {
        let h = try Harness()
        let named = field == "rule" ? #""rule": "\#(Self.intMax)""# : #""rule": null, "lifted": ["\#(Self.intMax)"]"#
        let kind = field == "rule" ? "deleted" : "lifted_all"
        let body = #"""
            {"projects": [{"key": "demo", "changes": [{"id": 1, "at": "2026-12-02T09:00:00.000Z",
              "kind": "\#(kind)", "action": "x", \#(named), "blocking": false}]}]}
            """#
        let response = h.call("PUT", "/admin/state", body: body)
        #expect(response.status == 422)
        #expect(response.firstPointer == "/projects/0/changes/0/" + (field == "rule" ? "rule" : "lifted/0"))
    }

    @Test func aConfigFileWithARuleIdPastTheLargestIsRefused() {
        #expect(throws: ConfigError.self) {
            try ConfigFile.parse(Array(Self.snapshot(ruleId: Self.intMax).utf8), file: "seed.json")
        }
        #expect(throws: ConfigError.self) {
            try ConfigFile.parse(
                Array(
                    "projects:\n  - key: demo\n    rules:\n      - {id: \(Self.intMax), type: optional_update, below: '2.0'}\n"
                        .utf8
                ),
                file: "seed.yaml"
            )
        }
    }

    @Test func theLargestRuleIdImportsAndTheNextCreationIsA422() throws {
        let h = try Harness()
        #expect(h.call("PUT", "/admin/state", body: Self.snapshot(ruleId: Self.largest)).status == 200)
        let refused = h.post("/admin/projects/demo/rules", #"{"type": "optional_update", "below": "3.0"}"#)
        #expect(refused.status == 422)
        #expect(refused.text.contains("used every rule id"))
        #expect(h.get("/admin/projects/demo/rules")["rules"]?.arrayValue?.count == 1, "nothing was added")
        #expect(h.delete("/admin/projects/demo/rules/\(Self.largest)").status == 204, "other changes still work")
    }

    @Test func theLargestChangeOrPushIdRefusesTheNextChange() throws {
        let max = Identifier.maximumNumber
        for (changes, pushes) in [
            (
                #"[{"id": \#(max), "at": "2026-12-02T09:00:00.000Z", "kind": "created", "action": "x", "rule": "r1", "blocking": false}]"#,
                "[]"
            ),
            ("[]", #"[{"id": \#(max), "sent_at": "2026-12-02T09:00:00.000Z", "changes": [1], "results": []}]"#),
        ] {
            let h = try Harness()
            let body = #"{"projects": [{"key": "demo", "changes": \#(changes), "pushes": \#(pushes)}]}"#
            let imported = h.call("PUT", "/admin/state", body: body)
            #expect(imported.status == 200, "\(imported.text)")
            let refused = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "3.0"}"#)
            #expect(refused.status == 422)
            #expect(refused.text.contains("used every change or push id"))
            #expect(h.get("/admin/state").status == 200)
            let again = try Harness()
            #expect(
                again.call("PUT", "/admin/state", body: h.get("/admin/state").text).status == 200,
                "exports read back"
            )
        }
    }

    @Test func aRuleIdPastTheLargestInThePathIsA422() throws {
        let h = try Harness()
        #expect(h.get("/admin/projects/demo/rules/\(Self.intMax)").status == 422)
        #expect(h.get("/admin/projects/demo/rules/r1").status == 404, "an ordinary unknown id stays a 404")
    }

    @Test func restoringAProjectNeverOverflows() {
        let change = Change(
            id: Int.max,
            at: .init(millisecondsSinceEpoch: 0),
            kind: .deleted,
            action: "x",
            ruleId: Self.intMax,
            blocking: false
        )
        let state = ProjectState(key: "demo", apnsTopic: nil, fcmProject: nil, rules: [], changes: [change])
        #expect(state.changeIdsUsedUp)
        #expect(state.nextRuleNumber == 1, "an id past the largest is no number")
    }

    @Test func ingestCountsSaturateAtTheSnapshotBound() throws {
        let h = try Harness()
        let body = #"{"projects": [{"key": "demo", "ingest": {"errors": \#(StateSnapshot.maximumIngestCount)}}]}"#
        #expect(h.call("PUT", "/admin/state", body: body).status == 200)
        #expect(h.post("/v1/projects/demo/ingest/errors", "[1, 2]").status == 202)
        let again = try Harness()
        #expect(again.call("PUT", "/admin/state", body: h.get("/admin/state").text).status == 200)
    }
}
