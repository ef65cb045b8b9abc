import JSON
@testable import MockServer
import Testing

@Suite struct PushTokenEndpointTests {
    @Test func tokensRegisterListAndUnregister() throws {
        let h = try Harness()
        #expect(h.put("/v1/projects/demo/push-tokens/aa11", #"{"platform": "ios"}"#).status == 204)
        #expect(h.put("/v1/projects/demo/push-tokens/bb22", #"{"platform": "android"}"#).status == 204)
        #expect(h.put("/v1/projects/demo/push-tokens/aa11", #"{"platform": "macos"}"#).status == 204)
        let list = h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue ?? []
        #expect(list.map { $0["token"] } == ["aa11", "bb22"], "re-registering keeps the order")
        #expect(list.first?["platform"] == "macos")
        #expect(list.first?["registered_at"] == .string(Harness.start.rfc3339))
        #expect(h.delete("/v1/projects/demo/push-tokens/aa11").status == 204)
        #expect(h.delete("/v1/projects/demo/push-tokens/aa11").status == 204, "idempotent")
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue?.count == 1)
    }

    @Test func webAndBadBodiesAreRefused() throws {
        let h = try Harness()
        let web = h.put("/v1/projects/demo/push-tokens/t", #"{"platform": "web"}"#)
        #expect(web.status == 422)
        #expect(web.firstPointer == "/platform")
        #expect(web["detail"]?.stringValue?.contains("web has no push") == true)
        #expect(h.put("/v1/projects/demo/push-tokens/t", #"{}"#).status == 422)
        #expect(h.put("/v1/projects/demo/push-tokens/t", #"{"platform": 1}"#).status == 400)
        #expect(h.put("/v1/projects/demo/push-tokens/t", "ios").status == 400)
        #expect(h.put("/v1/projects/ghost/push-tokens/t", #"{"platform": "ios"}"#).status == 404)
        #expect(h.delete("/v1/projects/ghost/push-tokens/t").status == 404)
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"] == [])
    }
}

@Suite struct PushRecordTests {
    let required = #"{"type": "required_update", "below": "2.0"}"#

    @Test func twoQuickBlockingChangesGiveOnePushNowAndOneCombined60sLater() throws {
        let sink = RecordingSink()
        let h = try Harness(sink: sink)
        _ = h.put("/v1/projects/demo/push-tokens/ios1", #"{"platform": "ios"}"#)
        _ = h.put("/v1/projects/demo/push-tokens/and1", #"{"platform": "android"}"#)

        _ = h.post("/admin/projects/demo/rules", required)
        var pushes = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue ?? []
        #expect(pushes.count == 1, "the first push is recorded before the change answers")
        #expect(pushes.first?["changes"] == [1])
        #expect(pushes.first?["sent_at"] == .string(Harness.start.rfc3339))
        #expect(pushes.first?["tokens"] == .object([("ios", 1), ("android", 1)]))
        #expect(pushes.first?["delivered"] == 2)

        h.advance(seconds: 10)
        _ = h.put("/admin/projects/demo/rules/r1", #"{"type": "required_update", "below": "2.1"}"#)
        h.advance(seconds: 5)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "optional_update", "below": "9.0"}"#)
        _ = h.delete("/admin/projects/demo/rules/r1")
        #expect(h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.count == 1, "throttled")

        let moved = h.post("/admin/clock", #"{"advance_seconds": 45}"#)
        #expect(moved.status == 200)
        pushes = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue ?? []
        #expect(pushes.count == 2)
        #expect(pushes.last?["changes"] == [2, 4], "the optional update (change 3) is not blocking")
        #expect(pushes.last?["sent_at"] == "2026-12-02T11:01:00.000Z")
        #expect(pushes.last?["id"] == 2)
        #expect(sink.pushes.withLock { $0.count } == 2)
        #expect(sink.pushes.withLock { $0.first?.tokens.map(\.token) } == ["ios1", "and1"])
    }

    @Test func withoutGatewayPushesAreRecordedAsNoGateway() throws {
        let h = try Harness()
        _ = h.put("/v1/projects/demo/push-tokens/ios1", #"{"platform": "ios"}"#)
        _ = h.post("/admin/projects/demo/rules", required)
        let push = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first
        #expect(push?["no_gateway"] == 1)
        #expect(push?["pending"] == 0)
        #expect(push?["delivered"] == 0)
        #expect(push?["results"]?.arrayValue?.first?["result"] == "no_gateway")
    }

    @Test func aProjectWithoutTokensStillRecordsThePush() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/rules", required)
        let push = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first
        #expect(push?["changes"] == [1])
        #expect(push?["results"] == [])
    }

    @Test func unregisteredTokensAreRemoved() throws {
        let h = try Harness(sink: RecordingSink(unregister: ["gone"]))
        _ = h.put("/v1/projects/demo/push-tokens/gone", #"{"platform": "ios"}"#)
        _ = h.put("/v1/projects/demo/push-tokens/kept", #"{"platform": "ios"}"#)
        _ = h.post("/admin/projects/demo/rules", required)
        let push = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first
        #expect(push?["failed"] == 1)
        #expect(push?["delivered"] == 1)
        #expect(push?["results"]?.arrayValue?.first?["reason"] == "410 Unregistered")
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue?.map { $0["token"] } == ["kept"])
    }

    @Test func nonBlockingChangesSendNoPush() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/rules", #"{"type": "optional_update", "below": "2.0"}"#)
        _ = h.post("/admin/projects/demo/rules", """
            {"type": "maintenance", "starts_at": "\(h.time(7200))", "ends_at": "\(h.time(9000))"}
            """)
        #expect(h.get("/admin/projects/demo/pushes")["pushes"] == [])
    }

    @Test func resetCancelsAPendingCombinedPush() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/rules", required)
        _ = h.post("/admin/projects/demo/rules", required)
        _ = h.post("/admin/reset", "")
        h.advance(seconds: 120)
        #expect(h.get("/admin/projects/demo/pushes")["pushes"] == [])
    }
}

@Suite struct AsyncDeliveryTests {
    @Test func resultsArriveInBatchesAndPendingCountsDown() throws {
        let sink = DeferredSink()
        let h = try Harness(sink: sink)
        for token in ["a", "b", "c"] { _ = h.put("/v1/projects/demo/push-tokens/\(token)", #"{"platform": "android"}"#) }
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        #expect(h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first?["pending"] == 3)
        sink.completeAll(.failed(reason: "503 from gateway"), batch: 2)
        let push = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first
        #expect(push?["pending"] == 0)
        #expect(push?["failed"] == 3)
        #expect(push?["results"]?.arrayValue?.first?["reason"] == "503 from gateway")
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue?.count == 3, "failed tokens stay")
    }

    @Test func lateResultsNeverLandOnAPushAfterAReset() throws {
        let sink = DeferredSink()
        let h = try Harness(sink: sink)
        _ = h.put("/v1/projects/demo/push-tokens/a", #"{"platform": "ios"}"#)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        let old = sink.pending.withLock { p in defer { p.removeAll() }; return p }
        _ = h.post("/admin/reset", "")
        _ = h.put("/v1/projects/demo/push-tokens/a", #"{"platform": "ios"}"#)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        for (push, completion) in old { completion(push.tokens.map { TokenDelivery(token: $0.token, result: .unregistered(reason: "410")) }) }
        let push = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first
        #expect(push?["id"] == 1)
        #expect(push?["pending"] == 1, "the old push's results were dropped")
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue?.count == 1)
    }
}
