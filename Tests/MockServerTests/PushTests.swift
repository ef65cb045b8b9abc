import JSON
import Testing

@testable import MockServer

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
        #expect(push?["results"] == nil, "the listing carries counts; results are paged at results_url")
        #expect(h.results(push)?.first?["result"] == "no_gateway")
    }

    @Test func aProjectWithoutTokensStillRecordsThePush() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/rules", required)
        let push = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first
        #expect(push?["changes"] == [1])
        #expect(push?["tokens"] == .object([]))
        #expect(h.results(push) == [])
    }

    @Test func unregisteredTokensAreRemoved() throws {
        let h = try Harness(sink: RecordingSink(unregister: ["gone"]))
        _ = h.put("/v1/projects/demo/push-tokens/gone", #"{"platform": "ios"}"#)
        _ = h.put("/v1/projects/demo/push-tokens/kept", #"{"platform": "ios"}"#)
        _ = h.post("/admin/projects/demo/rules", required)
        let push = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first
        #expect(push?["failed"] == 1)
        #expect(push?["delivered"] == 1)
        #expect(h.results(push)?.first?["reason"] == "410 Unregistered")
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue?.map { $0["token"] } == ["kept"])
    }

    @Test func nonBlockingChangesSendNoPush() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/rules", #"{"type": "optional_update", "below": "2.0"}"#)
        _ = h.post(
            "/admin/projects/demo/rules",
            """
            {"type": "maintenance", "starts_at": "\(h.time(7200))", "ends_at": "\(h.time(9000))"}
            """
        )
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
        for token in ["a", "b", "c"] {
            _ = h.put("/v1/projects/demo/push-tokens/\(token)", #"{"platform": "android"}"#)
        }
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        #expect(h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first?["pending"] == 3)
        sink.completeAll(.failed(reason: "503 from gateway"), batch: 2)
        let push = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first
        #expect(push?["pending"] == 0)
        #expect(push?["failed"] == 3)
        #expect(h.results(push)?.first?["reason"] == "503 from gateway")
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue?.count == 3, "failed tokens stay")
    }

    @Test func lateResultsNeverLandOnAPushAfterAReset() throws {
        let sink = DeferredSink()
        let h = try Harness(sink: sink)
        _ = h.put("/v1/projects/demo/push-tokens/a", #"{"platform": "ios"}"#)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        let old = sink.pending.withLock { p in
            defer { p.removeAll() }
            return p
        }
        _ = h.post("/admin/reset", "")
        _ = h.put("/v1/projects/demo/push-tokens/a", #"{"platform": "ios"}"#)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        for (push, completion) in old {
            completion(push.tokens.map { TokenDelivery(token: $0.token, result: .unregistered(reason: "410")) })
        }
        let push = h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first
        #expect(push?["id"] == 1)
        #expect(push?["pending"] == 1, "the old push's results were dropped")
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue?.count == 1)
    }
}

/// The push listing carries counts only; per-token results are paged per push.
@Suite struct PushResultPagesTests {
    let required = #"{"type": "required_update", "below": "2.0"}"#

    /// Five tokens (the second and fourth unregistered by the sink) and one push.
    func harness() throws -> Harness {
        let h = try Harness(sink: RecordingSink(unregister: ["t2", "t4"]))
        for i in 1...5 {
            _ = h.put("/v1/projects/demo/push-tokens/t\(i)", #"{"platform": "\#(i == 5 ? "android" : "ios")"}"#)
        }
        _ = h.post("/admin/projects/demo/rules", required)
        return h
    }

    @Test func theListingShowsCountsAndWhereTheResultsAreNotTheResults() throws {
        let h = try harness()
        let push = try #require(h.get("/admin/projects/demo/pushes")["pushes"]?.arrayValue?.first)
        #expect(push["results"] == nil)
        #expect(push["results_url"] == "/admin/projects/demo/pushes/1/results")
        #expect(push["tokens"] == .object([("ios", 4), ("android", 1)]))
        #expect(push["delivered"] == 3)
        #expect(push["failed"] == 2)
        #expect(push["pending"] == 0)
        #expect(h.get("/admin/projects/demo/pushes/1").json == push, "one push answers as the listing shows it")
    }

    @Test func resultsComeInSendOrderOnePageAtATimeWithANextLink() throws {
        let h = try harness()
        let first = h.get("/admin/projects/demo/pushes/1/results?limit=2")
        #expect(first.status == 200)
        #expect(first["results"]?.arrayValue?.map { $0["token"] } == ["t1", "t2"])
        #expect(first["results"]?.arrayValue?.last?["result"] == "unregistered")
        #expect(first["results"]?.arrayValue?.last?["reason"] == "410 Unregistered")
        #expect(first["results"]?.arrayValue?.first?["reason"] == nil, "a delivered token has no reason")
        #expect(first["next"] == "/admin/projects/demo/pushes/1/results?after=2&limit=2")
        let second = h.get("/admin/projects/demo/pushes/1/results?after=2&limit=2")
        #expect(second["results"]?.arrayValue?.map { $0["token"] } == ["t3", "t4"])
        let last = h.get("/admin/projects/demo/pushes/1/results?after=4&limit=2")
        #expect(last["results"]?.arrayValue?.map { $0["token"] } == ["t5"])
        #expect(last["results"]?.arrayValue?.first?["platform"] == "android")
        #expect(last["next"] == .null)
        #expect(h.get("/admin/projects/demo/pushes/1/results")["results"]?.arrayValue?.count == 5, "1000 by default")
    }

    @Test func resultFiltersToOneOutcomeAndItsNextLinkKeepsTheFilter() throws {
        let h = try harness()
        let page = h.get("/admin/projects/demo/pushes/1/results?result=unregistered&limit=1")
        #expect(page["results"]?.arrayValue?.map { $0["token"] } == ["t2"])
        let next = try #require(page["next"]?.stringValue)
        #expect(next == "/admin/projects/demo/pushes/1/results?after=3&limit=1&result=unregistered")
        let rest = h.get(next)
        #expect(rest["results"]?.arrayValue?.map { $0["token"] } == ["t4"])
        #expect(rest["next"] == .null)
        #expect(h.get("/admin/projects/demo/pushes/1/results?result=pending")["results"] == [])
    }

    @Test func unknownPushesAndBadParametersAreClearProblems() throws {
        let h = try harness()
        let unknown = h.get("/admin/projects/demo/pushes/9/results")
        #expect(unknown.status == 404)
        #expect(unknown["type"] == "urn:lerix-mock:problem:unknown-push")
        #expect(unknown["detail"] == "project \"demo\" has no push 9; GET /admin/projects/demo/pushes lists them")
        #expect(h.get("/admin/projects/demo/pushes/9").status == 404)
        #expect(h.get("/admin/projects/ghost/pushes/1").status == 404)
        for bad in ["0", "x", "-1", "+1", "1.0", "99999999999999999999"] {
            let r = h.get("/admin/projects/demo/pushes/\(bad)/results")
            #expect(r.status == 422, "\(bad)")
            #expect(r["errors"]?.arrayValue?.first?["parameter"] == "push", "\(bad)")
        }
        let result = h.get("/admin/projects/demo/pushes/1/results?result=lost")
        #expect(result.status == 422)
        #expect(result["errors"]?.arrayValue?.first?["parameter"] == "result")
        #expect(h.get("/admin/projects/demo/pushes/1/results?limit=0").status == 422)
    }

    @Test func theEventStreamsPushEventCarriesTheSummary() throws {
        let push = PushRecord(
            id: 4,
            sentAt: Harness.start,
            changes: [1],
            targets: [PushTarget(token: "a", platform: .ios)]
        )
        let event = MockServer.feedEvent(.pushUpdated(project: "demo", push: push))
        #expect(event.data["push"]?["results"] == nil)
        #expect(event.data["push"]?["results_url"] == "/admin/projects/demo/pushes/4/results")
        #expect(event.data["push"]?["pending"] == 1)
    }
}

/// ``PushRecord`` keeps a byte per token and its counts as results arrive.
@Suite struct PushRecordStorageTests {
    let targets = (0..<4).map { PushTarget(token: "t\($0)", platform: $0 == 3 ? .android : .ios) }

    @Test func resultsApplyByPositionOrByTokenAndTheCountsFollow() {
        var record = PushRecord(id: 1, sentAt: Harness.start, changes: [1], targets: targets)
        #expect(record.counts == PushRecord.Counts(pending: 4))
        let gone = record.apply([
            TokenDelivery(token: "t0", result: .delivered, position: 0),
            TokenDelivery(token: "t1", result: .unregistered(reason: "410"), position: 1),
            TokenDelivery(token: "t2", result: .failed(reason: "503"), position: 0),  // wrong position: found by token
            TokenDelivery(token: "t3", result: .noGateway),
            TokenDelivery(token: "elsewhere", result: .delivered),  // not in this push: ignored
        ])
        #expect(gone == ["t1"])
        #expect(record.results == [.delivered, .unregistered(reason: "410"), .failed(reason: "503"), .noGateway])
        #expect(record.counts == PushRecord.Counts(pending: 0, delivered: 1, failed: 2, unregistered: 1, noGateway: 1))
        _ = record.apply([TokenDelivery(token: "t2", result: .delivered, position: 2)])
        #expect(record.result(at: 2) == .delivered)
        #expect(record.counts == PushRecord.Counts(pending: 0, delivered: 2, failed: 1, unregistered: 1, noGateway: 1))
        #expect(record.json["results"]?.arrayValue?[2]["reason"] == nil, "a later success drops the old reason")
    }

    @Test func theFullRecordReadsBackEqual() throws {
        var record = PushRecord(id: 2, sentAt: Harness.start, changes: [1, 3], targets: targets)
        _ = record.apply([
            TokenDelivery(token: "t1", result: .failed(reason: "429 TooManyRequests")),
            TokenDelivery(token: "t3", result: .delivered),
        ])
        let back = try #require(PushRecord(json: record.json))
        #expect(back == record)
        #expect(back.counts == record.counts)
        #expect(record.json["failed"] == 1)
        #expect(record.json["results"]?.arrayValue?.count == 4)
    }
}

/// A push goes to the tokens in registration order, however they changed since the last one
/// (the runtime keeps the targets as tokens arrive, and rebuilds them after a removal).
@Suite struct PushTargetOrderTests {
    @Test func pushesFollowRegistrationOrderThroughRemovalsAndPlatformChanges() throws {
        let sink = RecordingSink()
        let h = try Harness(sink: sink)
        for token in ["a", "b", "c"] { _ = h.put("/v1/projects/demo/push-tokens/\(token)", #"{"platform": "ios"}"#) }
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        _ = h.delete("/v1/projects/demo/push-tokens/b")
        _ = h.put("/v1/projects/demo/push-tokens/d", #"{"platform": "android"}"#)
        h.advance(seconds: 61)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "3.0"}"#)
        _ = h.put("/v1/projects/demo/push-tokens/a", #"{"platform": "macos"}"#)
        _ = h.put("/v1/projects/demo/push-tokens/b", #"{"platform": "ios"}"#)
        h.advance(seconds: 61)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "4.0"}"#)
        let sent = sink.pushes.withLock { $0.map { $0.tokens.map { "\($0.token):\($0.platform.rawValue)" } } }
        #expect(
            sent == [
                ["a:ios", "b:ios", "c:ios"], ["a:ios", "c:ios", "d:android"],
                ["a:macos", "c:ios", "d:android", "b:ios"],
            ]
        )
    }
}
