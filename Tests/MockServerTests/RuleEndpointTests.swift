import JSON
import Testing

@testable import MockServer

@Suite struct RuleEndpointTests {
    @Test func rulesCRUDWithServerAssignedIds() throws {
        let h = try Harness()
        let a = h.post(
            "/admin/projects/demo/rules",
            #"{"type": "optional_update", "platforms": ["android"], "below": "3.0"}"#
        )
        let b = h.post(
            "/admin/projects/demo/rules",
            #"{"type": "sdk_switch", "modules": ["analytics"], "ends_at": "2026-12-03T00:00:00.000Z"}"#
        )
        #expect(a.status == 201 && b.status == 201)
        #expect(b.header("Location") == "/admin/projects/demo/rules/r2")
        let list = h.get("/admin/projects/demo/rules")
        #expect(list["rules"]?.arrayValue?.map { $0["id"] } == ["r1", "r2"])
        #expect(h.get("/admin/projects/demo/rules/r2")["type"] == "sdk_switch")

        let replaced = h.put("/admin/projects/demo/rules/r1", #"{"type": "optional_update", "below": "3.1"}"#)
        #expect(replaced.status == 200)
        #expect(replaced["id"] == "r1")
        #expect(replaced["below"] == "3.1")

        #expect(h.delete("/admin/projects/demo/rules/r1").status == 204)
        #expect(h.get("/admin/projects/demo/rules/r1").status == 410, "deleted: gone for good")
        #expect(h.delete("/admin/projects/demo/rules/r1").status == 410)
        #expect(h.put("/admin/projects/demo/rules/r9", #"{"type": "optional_update", "below": "3.1"}"#).status == 404)

        let changes = h.get("/admin/projects/demo/changes")["changes"]?.arrayValue ?? []
        #expect(changes.map { $0["id"] } == [1, 2, 3, 4])
        #expect(changes.allSatisfy { $0["blocking"] == false }, "optional updates and switches never block")
    }

    /// schemathesis's ST302 (issue 42 item 11): a recommended update created with its deadline
    /// already past (year 596) is a blocking state, so a lift-all later in the same stateful
    /// sequence lifted it, and the GET and PUT that followed the 201 said "no rule" (404), as if it
    /// never was. It is gone for good, and the answer says so and names the change.
    @Test func aRuleLiftAllTookAwayIsGoneAndNamesTheChange() throws {
        let h = try Harness()
        let created = h.post(
            "/admin/projects/demo/rules",
            #"{"type": "recommended_update", "below": "2.0", "becomes_required_on": "0596-01-01T00:00:00Z"}"#
        )
        #expect(created.status == 201)
        #expect(created.header("Location") == "/admin/projects/demo/rules/r1")
        let lifted = h.call("POST", "/admin/projects/demo/lift-all")
        #expect(lifted["lifted"]?.arrayValue?.map { $0["id"] } == ["r1"])
        let gone = h.get("/admin/projects/demo/rules/r1")
        #expect(gone.status == 410)
        #expect(gone["type"] == "urn:lerix-mock:problem:rule-removed")
        #expect(gone["detail"]?.stringValue?.contains("lifted by lift-all") == true)
        #expect(gone["detail"]?.stringValue?.contains("in change 2 ") == true, "\(gone.text)")
        #expect(
            h.put("/admin/projects/demo/rules/r1", #"{"type": "optional_update", "below": "3.1"}"#).status == 410
        )
        #expect(h.delete("/admin/projects/demo/rules/r1").status == 410)
        #expect(h.get("/admin/projects/demo/rules/r2").status == 404, "an id never issued is still unknown")
    }

    @Test func malformedJSONIs400PointingAtTheBody() throws {
        let h = try Harness()
        let response = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": }"#)
        #expect(response.status == 400)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(response["errors"]?.arrayValue?.count == 1)
        #expect(response["detail"]?.stringValue?.contains("line 1") == true)
    }

    @Test func wrongTypeIs400AndWinsOver422() throws {
        let h = try Harness()
        let response = h.post(
            "/admin/projects/demo/rules",
            #"{"type": "required_update", "below": 24, "platforms": ["beos"]}"#
        )
        #expect(response.status == 400)
        let pointers = response["errors"]?.arrayValue?.compactMap { $0["pointer"]?.stringValue } ?? []
        #expect(pointers.contains("/below"))
    }

    @Test func ruleViolationIs422WithPointer() throws {
        let h = try Harness()
        let missing = h.post("/admin/projects/demo/rules", #"{"type": "required_update"}"#)
        #expect(missing.status == 422)
        #expect(missing.firstPointer == "/below")
        let badVersion = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "two"}"#)
        #expect(badVersion.status == 422)
        #expect(badVersion.firstPointer == "/below")
        let long = h.post(
            "/admin/projects/demo/rules",
            """
            {"type": "maintenance", "starts_at": "2026-12-02T11:00:00.000Z", "ends_at": "2026-12-10T11:00:00.000Z"}
            """
        )
        #expect(long.status == 422)
        #expect(h.get("/admin/projects/demo/rules")["rules"]?.arrayValue?.isEmpty == true, "nothing was created")
    }

    @Test func rulesOfAnUnknownProjectAre404() throws {
        let h = try Harness()
        #expect(h.get("/admin/projects/ghost/rules").status == 404)
        #expect(h.post("/admin/projects/ghost/rules", #"{"type": "required_update", "below": "1.0"}"#).status == 404)
        #expect(h.post("/admin/projects/ghost/lift-all", "").status == 404)
        #expect(h.get("/admin/projects/ghost/changes").status == 404)
    }

    @Test func liftAllAnswersWhatItLiftedAndKeepsTheRest() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "optional_update", "below": "3.0"}"#)
        _ = h.post(
            "/admin/projects/demo/rules",
            """
            {"type": "maintenance", "starts_at": "\(h.time(0))", "ends_at": "\(h.time(600))"}
            """
        )
        let lifted = h.post("/admin/projects/demo/lift-all", "")
        #expect(lifted["lifted"]?.arrayValue?.compactMap { $0["id"]?.stringValue }.sorted() == ["r1", "r3"])
        #expect(h.get("/admin/projects/demo/rules")["rules"]?.arrayValue?.map { $0["id"] } == ["r2"])
        let nothing = h.post("/admin/projects/demo/lift-all", "")
        #expect(nothing["lifted"]?.arrayValue?.isEmpty == true)
        #expect(nothing["change"]?["blocking"] == false)
    }
}

@Suite struct ProjectEndpointTests {
    @Test func putCreatesThenUpdatesAProject() throws {
        let h = try Harness()
        let created = h.put("/admin/projects/shop", #"{"apns_topic": "dev.lerix.shop", "fcm_project": "shop-fcm"}"#)
        #expect(created.status == 201)
        #expect(created["apns_topic"] == "dev.lerix.shop")
        let updated = h.put("/admin/projects/shop", #"{"fcm_project": null}"#)
        #expect(updated.status == 200)
        #expect(updated["apns_topic"] == "dev.lerix.shop")
        #expect(updated["fcm_project"] == .null)
        #expect(h.get("/admin/projects")["projects"]?.arrayValue?.map { $0["key"] } == ["demo", "shop"])
        #expect(h.get("/admin/projects/shop")["key"] == "shop")
        #expect(h.get("/admin/projects/ghost").status == 404)
        #expect(h.check("platform=ios", project: "shop").status == 200)
    }

    @Test func badProjectBodiesAndKeysAreRefused() throws {
        let h = try Harness()
        #expect(h.put("/admin/projects/shop", #"{"apns_topic": 5}"#).status == 400)
        #expect(h.put("/admin/projects/shop", #"{"colour": "red"}"#).status == 422)
        #expect(h.put("/admin/projects/shop", #"[1]"#).status == 400)
        #expect(h.put("/admin/projects/a%20b", "").status == 422)
        #expect(h.get("/admin/projects/shop").status == 404, "nothing was created")
    }
}

@Suite struct IngestTests {
    @Test func ingestCountsArrayItemsPerModule() throws {
        let h = try Harness()
        let accepted = h.post("/v1/projects/demo/ingest/errors", #"[{"m": 1}, {"m": 2}]"#)
        #expect(accepted.status == 202)
        #expect(accepted["accepted"] == 2)
        _ = h.post("/v1/projects/demo/ingest/errors", "[3]")
        _ = h.post("/v1/projects/demo/ingest/analytics", "[]")
        let counts = h.get("/admin/projects/demo/ingest")
        #expect(counts["ingest"] == .object([("analytics", 0), ("errors", 3)]))
    }

    @Test func ingestRefusesBadBodiesModulesAndProjects() throws {
        let h = try Harness()
        #expect(h.post("/v1/projects/demo/ingest/errors", #"{"m": 1}"#).status == 400)
        #expect(h.post("/v1/projects/demo/ingest/errors", "[").status == 400)
        let module = h.post("/v1/projects/demo/ingest/telemetry", "[]")
        #expect(module.status == 422)
        #expect(module["errors"]?.arrayValue?.first?["parameter"] == "module")
        #expect(h.post("/v1/projects/ghost/ingest/errors", "[]").status == 404)
        #expect(h.get("/admin/projects/demo/ingest")["ingest"] == .object([]))
    }
}
