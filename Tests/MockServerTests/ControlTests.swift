import Clock
import HTTP
import JSON
import Testing

@testable import MockServer

@Suite struct ClockEndpointTests {
    @Test func manualClockAdvancesAndSets() throws {
        let h = try Harness()
        #expect(h.get("/admin/clock")["now"] == .string(Harness.start.rfc3339))
        #expect(h.get("/admin/clock")["mode"] == "manual")
        let advanced = h.post("/admin/clock", #"{"advance_seconds": 90}"#)
        #expect(advanced.status == 200)
        #expect(advanced["now"] == "2026-12-02T11:01:30.000Z")
        #expect(h.post("/admin/clock", #"{"set": "2026-12-03T00:00:00Z"}"#)["now"] == "2026-12-03T00:00:00.000Z")
        #expect(h.clock.now == Instant(rfc3339: "2026-12-03T00:00:00Z"))
    }

    @Test func badClockMovesAreRefused() throws {
        let h = try Harness()
        #expect(h.post("/admin/clock", #"{"advance_seconds": "60"}"#).status == 400)
        #expect(h.post("/admin/clock", #"{"advance_seconds": -1}"#).status == 422)
        #expect(h.post("/admin/clock", #"{"set": "yesterday"}"#).status == 422)
        #expect(h.post("/admin/clock", #"{"set": "2020-01-01T00:00:00Z"}"#).firstPointer == "/set")
        #expect(h.post("/admin/clock", #"{}"#).status == 422)
        #expect(h.post("/admin/clock", #"{"advance_seconds": 1, "set": "2027-01-01T00:00:00Z"}"#).status == 422)
        #expect(h.clock.now == Harness.start)
    }

    @Test func systemClockCannotBeMoved() throws {
        let h = try Harness(manual: false)
        let response = h.post("/admin/clock", #"{"advance_seconds": 60}"#)
        #expect(response.status == 409)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(h.get("/admin/clock")["mode"] == "system")
    }
}

@Suite struct FaultTests {
    @Test func statusFaultWithCountThenNormalAnswers() throws {
        let h = try Harness()
        let armed = h.post("/admin/projects/demo/faults", #"{"kind": "status", "status": 503, "count": 2}"#)
        #expect(armed.status == 200)
        #expect(armed["faults"]?.arrayValue?.first?["count"] == 2)
        #expect(h.check("platform=ios").status == 503)
        let second = h.check("platform=ios")
        #expect(second.status == 503)
        #expect(second.header("Content-Type") == "application/problem+json")
        #expect(h.check("platform=ios").status == 200)
        let journal = h.get("/admin/requests")["requests"]?.arrayValue ?? []
        #expect(journal.map { $0["status"] } == [200, 503, 503])
        #expect(journal.last?["fault"] == "status")
    }

    @Test func faultWithoutCountStaysUntilCleared() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/faults", #"{"kind": "status", "status": 500}"#)
        for _ in 0..<3 { #expect(h.check("platform=ios").status == 500) }
        #expect(h.get("/admin/projects/demo/faults")["faults"]?.arrayValue?.count == 1)
        #expect(h.delete("/admin/projects/demo/faults").status == 204)
        #expect(h.check("platform=ios").status == 200)
        #expect(h.get("/admin/projects/demo/faults")["faults"] == [])
    }

    @Test func resetFaultClosesTheConnection() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/faults", #"{"kind": "reset", "count": 1}"#)
        guard case .close? = h.send("GET", "/v1/projects/demo/release-control?platform=ios") else {
            Issue.record("expected the connection to be closed")
            return
        }
        #expect(h.check("platform=ios").status == 200)
    }

    @Test func malformedFaultAnswers200WithBrokenJSON() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/faults", #"{"kind": "malformed", "count": 1}"#)
        let response = h.check("platform=ios")
        #expect(response.status == 200)
        #expect(response.json == nil)
        #expect(!response.raw.body.isEmpty)
    }

    @Test func wrongTypesFaultAnswersTheContractsBody() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/faults", #"{"kind": "wrong_types"}"#)
        let response = h.check("platform=ios")
        #expect(response.status == 200)
        #expect(response["required_update"] == [])
        #expect(response["optional_update"] == 7)
        #expect(response["maintenance"] == .object([]))
        #expect(response["sdk_switch"] == "x")
        #expect(response["lifetime"] == "60")
        #expect(response["server_time"] == 5)
    }

    @Test func delayFaultAnswersNormallyLater() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/faults", #"{"kind": "delay", "seconds": 0.01, "count": 1}"#)
        let response = h.check("platform=ios")
        #expect(response.status == 200)
        #expect(response["project"] == "demo")
        #expect(h.get("/admin/requests")["requests"]?.arrayValue?.first?["fault"] == "delay")
    }

    @Test func statusFaultCanSayRetryAfter() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/faults", #"{"kind": "status", "status": 503, "retry_after": 30, "count": 1}"#)
        let response = h.check("platform=ios")
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "30")
        #expect(h.post("/admin/projects/demo/faults", #"{"kind": "status", "status": 200}"#).status == 422)
    }

    @Test func faultsQueueInOrder() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/faults", #"{"kind": "status", "status": 429, "count": 1}"#)
        _ = h.post("/admin/projects/demo/faults", #"{"kind": "status", "status": 502, "count": 1}"#)
        #expect(h.check("platform=ios").status == 429)
        #expect(h.check("platform=ios").status == 502)
        #expect(h.check("platform=ios").status == 200)
    }

    @Test func badFaultsAreRefused() throws {
        let h = try Harness()
        #expect(h.post("/admin/projects/demo/faults", #"{"kind": "explode"}"#).status == 422)
        #expect(h.post("/admin/projects/demo/faults", #"{"kind": "status"}"#).firstPointer == "/status")
        #expect(h.post("/admin/projects/demo/faults", #"{"kind": "status", "status": "503"}"#).status == 400)
        #expect(h.post("/admin/projects/demo/faults", #"{"kind": "delay", "seconds": 1, "count": 0}"#).status == 422)
        #expect(h.post("/admin/projects/ghost/faults", #"{"kind": "reset"}"#).status == 404)
        #expect(h.check("platform=ios").status == 200)
    }
}

@Suite struct ResetTests {
    @Test func resetReturnsToTheSeedAndIsNotAChange() throws {
        let seed = try StateSnapshot(
            json: JSON.parse(
                """
                {"projects": [{"key": "demo", "rules": [{"type": "optional_update", "below": "5.0"}],
                               "push_tokens": [{"token": "seeded", "platform": "ios"}]}]}
                """
            )
        )
        let h = try Harness(seed: seed)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        _ = h.put("/admin/projects/extra", "")
        _ = h.put("/v1/projects/demo/push-tokens/t2", #"{"platform": "android"}"#)
        _ = h.post("/v1/projects/demo/ingest/errors", "[1]")
        _ = h.post("/admin/projects/demo/faults", #"{"kind": "status", "status": 503}"#)
        _ = h.check("platform=ios&version=1.0")
        h.advance(seconds: 30)
        #expect(h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.count == 1)

        let reset = h.post("/admin/reset", "")
        #expect(reset.status == 200)
        #expect(h.clock.now == Harness.start.adding(seconds: 30), "the clock keeps its time")
        #expect(h.get("/admin/projects/demo/rules")["rules"]?.arrayValue?.map { $0["id"] } == ["r1"])
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue?.map { $0["token"] } == ["seeded"])
        #expect(h.get("/admin/projects/demo/changes")["changes"] == [])
        #expect(h.get("/admin/projects/demo/pushes")["pushes"] == [])
        #expect(h.get("/admin/projects/demo/ingest")["ingest"] == .object([]))
        #expect(h.get("/admin/projects/demo/faults")["faults"] == [])
        #expect(h.get("/admin/requests")["requests"] == [])
        #expect(h.get("/admin/projects/extra").status == 404)
        let answer = h.check("platform=ios&version=1.0")
        #expect(answer.status == 200)
        #expect(answer["lifetime"] == 300, "a reset is not a change")
        #expect(answer["required_update"] == .null)
        #expect(answer["optional_update"]?["rule"] == "r1")
        let created = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        #expect(created["id"] == "r2", "ids continue after the seed's")
    }
}
