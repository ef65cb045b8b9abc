import Clock
import JSON
import Testing

@testable import ReleaseControl

@Suite struct LifetimeTests {
    let device = Fixture.device(.ios, "1.0")

    func window(startingIn seconds: Int64) throws -> ProjectState {
        try Fixture.project([
            #"{"type":"maintenance","starts_at":"\#(Fixture.time(seconds))","ends_at":"\#(Fixture.time(seconds + 600))"}"#
        ])
    }

    @Test func windowStartingExactly3600SecondsAwayMakesLifetime60() throws {
        #expect(try window(startingIn: 3600).evaluate(device, now: Fixture.t0).lifetime == 60)
    }

    @Test func windowStarting3601SecondsAwayLeavesLifetime300() throws {
        let answer = try window(startingIn: 3601).evaluate(device, now: Fixture.t0)
        #expect(answer.lifetime == 300)
        #expect(answer.validUntil == Fixture.at(1))
    }

    @Test func activeWindowMakesLifetime60UntilItEnds() throws {
        let p = try window(startingIn: -60)
        #expect(p.evaluate(device, now: Fixture.t0).lifetime == 60)
        #expect(p.evaluate(device, now: Fixture.at(540)).lifetime == 300)
    }

    @Test func windowForAnotherPlatformDoesNotShortenTheLifetime() throws {
        let p = try Fixture.project([
            #"{"type":"maintenance","platforms":["android"],"starts_at":"\#(Fixture.time(0))","ends_at":"\#(Fixture.time(600))"}"#
        ])
        #expect(p.evaluate(device, now: Fixture.t0).lifetime == 300)
    }

    @Test func changeMakesLifetime60For1800Seconds() throws {
        var p = try Fixture.project([])
        _ = try p.createRule(Fixture.json(#"{"type":"optional_update","below":"0.1"}"#), now: Fixture.t0)
        #expect(p.evaluate(device, now: Fixture.at(1799)).lifetime == 60)
        #expect(p.evaluate(device, now: Fixture.t0.adding(milliseconds: 1_799_999)).lifetime == 60)
        #expect(p.evaluate(device, now: Fixture.at(1799)).validUntil == Fixture.at(1800))
        #expect(p.evaluate(device, now: Fixture.at(1800)).lifetime == 300)
        #expect(p.evaluate(device, now: Fixture.at(1800)).validUntil == nil)
    }

    @Test func seedRulesAreNotChanges() throws {
        let p = try Fixture.project([#"{"type":"required_update","below":"2.0"}"#])
        #expect(p.lastChangeAt == nil)
        #expect(p.changes.isEmpty)
        #expect(p.evaluate(device, now: Fixture.t0).lifetime == 300)
    }
}
