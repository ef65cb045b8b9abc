import Clock
import JSON
import Testing
@testable import ReleaseControl

@Suite struct ETagTests {
    let device = Fixture.device(.ios, "1.0")

    @Test func etagIsWeakAndSixteenHexDigits() throws {
        let etag = try Fixture.project([]).evaluate(device, now: Fixture.t0).etag
        #expect(etag.hasPrefix("W/\"") && etag.hasSuffix("\""))
        #expect(etag.count == 16 + 4)
    }

    @Test func etagIsStableAcrossTimeAndLifetimeChanges() throws {
        var p = try Fixture.project([#"{"type":"required_update","below":"2.0"}"#])
        let early = p.evaluate(device, now: Fixture.t0)
        _ = try p.createRule(Fixture.json(#"{"type":"optional_update","below":"0.1"}"#), now: Fixture.t0)
        let recent = p.evaluate(device, now: Fixture.at(10))
        let later = p.evaluate(device, now: Fixture.at(5000))
        #expect(recent.lifetime == 60 && later.lifetime == 300)
        #expect(early.etag == recent.etag)
        #expect(recent.etag == later.etag)
    }

    @Test func etagDiffersForDifferentStates() throws {
        let a = try Fixture.project([#"{"type":"required_update","below":"2.0"}"#]).evaluate(device, now: Fixture.t0)
        let b = try Fixture.project([#"{"type":"required_update","below":"2.0","message":"m"}"#]).evaluate(device, now: Fixture.t0)
        let c = try Fixture.project([]).evaluate(device, now: Fixture.t0)
        let d = ProjectState(key: "other", seedRules: []).evaluate(device, now: Fixture.t0)
        #expect(Set([a.etag, b.etag, c.etag, d.etag]).count == 4)
    }

    @Test func etagIsTheHashOfTheBodyWithoutServerTimeAndLifetime() throws {
        let answer = try Fixture.project([#"{"type":"optional_update","below":"2.0"}"#]).evaluate(device, now: Fixture.t0)
        guard case .object(var body) = try JSON.parse(answer.body(serverTime: Fixture.t0)) else {
            Issue.record("body is not an object")
            return
        }
        body["server_time"] = nil
        body["lifetime"] = nil
        #expect(answer.etag == "W/\"" + FNV1a64.hex(JSON.object(body).serialized()) + "\"")
    }

    @Test func fnv1aMatchesKnownVectors() {
        #expect(FNV1a64.hex([]) == "cbf29ce484222325")
        #expect(FNV1a64.hex(Array("a".utf8)) == "af63dc4c8601ec8c")
        #expect(FNV1a64.hex(Array("foobar".utf8)) == "85944171f73967e8")
    }
}
