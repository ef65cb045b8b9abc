import Clock
import JSON
import Synchronization
import Testing

@testable import MockServer

/// A redirectable sink that records where it was pointed and refuses one host.
final class PointableSink: RedirectablePushSink {
    let current = Mutex(PushGatewayURLs())

    var gateways: PushGatewayURLs { current.withLock { $0 } }

    func redirect(to gateways: PushGatewayURLs) throws(PushRedirectRefusal) {
        if gateways.fcm?.contains("example") == true {
            throw PushRedirectRefusal(field: "fcm", message: "not a loopback gateway")
        }
        current.withLock { $0 = gateways }
    }

    func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        completion(push.tokens.map { TokenDelivery(token: $0.token, result: .noGateway) })
    }
}

/// What a harness in virtual time asks of the server: its next timer, the pushes still in
/// flight, and where pushes go (CONTRACT twin, "Admin API").
@Suite struct HarnessHooksTests {
    @Test func theClockTellsItsNextTimerAndThePushesInFlight() throws {
        let sink = DeferredSink()
        let h = try Harness(sink: sink)
        #expect(h.get("/admin/clock")["next_deadline"] == .null)
        #expect(h.get("/admin/clock")["pushes_in_flight"] == 0)
        for token in ["a", "b"] { _ = h.put("/v1/projects/demo/push-tokens/\(token)", #"{"platform": "android"}"#) }
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        #expect(h.get("/admin/clock")["pushes_in_flight"] == 1)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "3.0"}"#)
        // The second change waits for the throttle: the combined push is the clock's next timer.
        #expect(h.get("/admin/clock")["next_deadline"] == .string(Harness.start.adding(seconds: 60).rfc3339))
        let moved = h.post("/admin/clock", #"{"advance_seconds": 60}"#)
        #expect(
            moved["next_deadline"] == .null && moved["pushes_in_flight"] == 2,
            "\(moved.json?.serializedString ?? "")"
        )
        sink.completeAll(.delivered, batch: 1)
        #expect(h.get("/admin/clock")["pushes_in_flight"] == 0)
        // GET then POST works: the fields the answer shows may come back unchanged.
        let echoed = h.post(
            "/admin/clock",
            #"{"advance_seconds": 1, "next_deadline": null, "pushes_in_flight": 0, "mode": "manual"}"#
        )
        #expect(echoed.status == 200, "\(echoed.text)")
        #expect(
            h.post("/admin/clock", #"{"advance_seconds": 1, "pushes_in_flight": 3}"#).firstPointer
                == "/pushes_in_flight"
        )
    }

    /// A harness in the same process reads the clock and the journal typed: the same as
    /// `GET /admin/clock` and `GET /admin/requests` answer, the journal by count since the reset.
    @Test func theTypedClockAndJournalReadTheSameAsTheAdminAPI() throws {
        let sink = DeferredSink()
        let h = try Harness(sink: sink)
        func sameClock() {
            let answer = h.get("/admin/clock")
            let reading = h.server.clockReading
            #expect(answer["now"] == .string(reading.now.rfc3339))
            #expect(answer["next_deadline"] == (reading.nextDeadline.map { .string($0.rfc3339) } ?? .null))
            #expect(answer["pushes_in_flight"] == .number(Double(reading.pushesInFlight)))
        }
        sameClock()
        for token in ["a", "b"] { _ = h.put("/v1/projects/demo/push-tokens/\(token)", #"{"platform": "android"}"#) }
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "3.0"}"#)
        sameClock()  // a push in flight, the next one throttled
        #expect(h.server.clockReading.pushesInFlight == 1 && h.server.clockReading.nextDeadline != nil)
        #expect(h.server.checksJournaled(project: "demo", after: 0).lines.isEmpty)
        _ = h.check("platform=ios&version=1.0")
        h.advance(seconds: 5)
        _ = h.check("platform=android&version=2.5&build=7")
        _ = h.check("platform=web")
        let listed = try #require(h.get("/admin/requests?project=demo")["requests"]?.arrayValue)
        let all = h.server.checksJournaled(project: "demo", after: 0)
        #expect(all.total == 3)
        #expect(all.lines.map(\.json) == listed.reversed(), "oldest first, as listed newest first")
        let last = h.server.checksJournaled(project: "demo", after: 1)
        #expect(last.lines.map(\.json) == Array(listed.reversed().dropFirst()) && last.total == 3)
        #expect(h.server.checksJournaled(project: "demo", after: 3).lines.isEmpty)
        #expect(h.server.checksJournaled(project: "other", after: 0).total == 0)
        sink.completeAll(.delivered, batch: 1)
        sameClock()
    }

    /// `POST /admin/reset {"now": T}` starts a manual-clock server over at T, backwards too, so
    /// a harness gives every scenario the same start; without `now` the clock keeps its time.
    @Test func aResetWithNowStartsTheManualClockOverAtThatTime() throws {
        let h = try Harness()
        for token in ["a", "b"] { _ = h.put("/v1/projects/demo/push-tokens/\(token)", #"{"platform": "android"}"#) }
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "3.0"}"#)
        h.advance(seconds: 30)
        #expect(h.get("/admin/clock")["next_deadline"] != .null, "a throttled push is pending")
        let earlier = Harness.start.adding(seconds: -3_600)
        let reset = h.post("/admin/reset", #"{"now": "\#(earlier.rfc3339)"}"#)
        #expect(reset.status == 200 && reset["now"] == .string(earlier.rfc3339), "\(reset.text)")
        #expect(h.clock.now == earlier)
        #expect(h.get("/admin/clock")["next_deadline"] == .null, "the reset cancelled the throttled push")
        #expect(h.get("/admin/projects/demo/rules")["rules"]?.arrayValue?.isEmpty == true)
        // Without a body, or with `{}`, the clock keeps its time.
        h.advance(seconds: 90)
        #expect(h.call("POST", "/admin/reset").status == 200)
        #expect(h.post("/admin/reset", "{}")["now"] == .string(earlier.adding(seconds: 90).rfc3339))
        // A bad body changes nothing, and says which field.
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        #expect(h.post("/admin/reset", #"{"now": 5}"#).status == 400)
        #expect(h.post("/admin/reset", #"{"now": "yesterday"}"#).firstPointer == "/now")
        #expect(h.post("/admin/reset", #"{"when": "2026-12-02T09:01:00.000Z"}"#).firstPointer == "/when")
        #expect(h.get("/admin/projects/demo/rules")["rules"]?.arrayValue?.count == 1)
    }

    @Test func aResetToATimeNeedsTheManualClockAndIsRefusedOnTheSystemOne() throws {
        let h = try Harness(manual: false)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        let refused = h.post("/admin/reset", #"{"now": "2026-12-02T09:01:00.000Z"}"#)
        #expect(refused.status == 409 && refused.text.contains("--clock manual"), "\(refused.text)")
        #expect(h.get("/admin/projects/demo/rules")["rules"]?.arrayValue?.count == 1, "nothing was reset")
    }

    @Test func aPendingResultSettlesNothingAndEveryTokenCounts() {
        let inFlight = PushesInFlight()
        inFlight.begin(push: 1, tokens: 2)
        inFlight.begin(push: 2, tokens: 0)
        #expect(inFlight.count == 1, "a push without tokens is never in flight")
        inFlight.settle(push: 1, results: [TokenDelivery(token: "a", result: .pending)])
        inFlight.settle(push: 1, results: [TokenDelivery(token: "a", result: .failed(reason: "503"))])
        #expect(inFlight.count == 1)
        inFlight.settle(push: 1, results: [TokenDelivery(token: "b", result: .delivered)])
        #expect(inFlight.count == 0)
    }

    @Test func pushesArePointedAtOtherGatewaysAndRefusalsNameTheField() throws {
        let sink = PointableSink()
        let h = try Harness(sink: sink)
        #expect(h.get("/admin/push-gateways").json == .object([("apns", .null), ("fcm", .null)]))
        let put = h.put("/admin/push-gateways", #"{"apns": "http://127.0.0.1:24100", "fcm": "http://127.0.0.1:24100"}"#)
        #expect(put.status == 200 && put["apns"] == "http://127.0.0.1:24100", "\(put.text)")
        #expect(sink.gateways == PushGatewayURLs(apns: "http://127.0.0.1:24100", fcm: "http://127.0.0.1:24100"))
        #expect(h.put("/admin/push-gateways", #"{"apns": null}"#).firstPointer == "/fcm", "both keys are needed")
        #expect(h.put("/admin/push-gateways", #"{"apns": null, "fcm": 5}"#).status == 400)
        #expect(h.put("/admin/push-gateways", #"{"apns": null, "fcm": null, "apn": null}"#).status == 422)
        let refused = h.put("/admin/push-gateways", #"{"apns": null, "fcm": "https://fcm.example.com"}"#)
        #expect(refused.status == 422 && refused.firstPointer == "/fcm")
        #expect(sink.gateways.apns == "http://127.0.0.1:24100", "a refused redirect changes nothing")
        _ = h.post("/admin/reset", "")
        #expect(h.get("/admin/push-gateways")["fcm"] == "http://127.0.0.1:24100", "a reset keeps the gateways")
    }

    @Test func aServerWhosePushesCannotMoveSaysSo() throws {
        let h = try Harness()
        let answer = h.get("/admin/push-gateways")
        #expect(answer.status == 409 && answer["detail"]?.stringValue?.contains("cannot be redirected") == true)
    }
}
