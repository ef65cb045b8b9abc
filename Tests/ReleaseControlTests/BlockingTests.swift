import Clock
import JSON
import Testing

@testable import ReleaseControl

@Suite struct BlockingTests {
    let t = Fixture.at
    let json = Fixture.json
    let time = Fixture.time

    func created(_ body: String, at now: Instant = Fixture.t0) throws -> Change {
        var p = try Fixture.project([])
        return try p.createRule(json(body), now: now).1
    }

    @Test func creatingARequiredUpdateIsBlocking() throws {
        #expect(try created(#"{"type":"required_update","below":"2.0"}"#).blocking)
    }

    @Test func optionalUpdatesAndSwitchesAreNotBlocking() throws {
        #expect(try !created(#"{"type":"optional_update","below":"2.0"}"#).blocking)
        #expect(try !created(#"{"type":"sdk_switch","modules":["all"],"ends_at":"\#(time(600))"}"#).blocking)
    }

    @Test func recommendedIsBlockingOnlyOncePastItsDeadline() throws {
        #expect(
            try !created(#"{"type":"recommended_update","below":"2.0","becomes_required_on":"\#(time(1))"}"#).blocking
        )
        #expect(
            try created(#"{"type":"recommended_update","below":"2.0","becomes_required_on":"\#(time(0))"}"#).blocking
        )
    }

    @Test func maintenanceIsBlockingWhenActiveOrStartingWithinTheHour() throws {
        #expect(try created(#"{"type":"maintenance","starts_at":"\#(time(-60))","ends_at":"\#(time(60))"}"#).blocking)
        #expect(
            try created(#"{"type":"maintenance","starts_at":"\#(time(3600))","ends_at":"\#(time(4000))"}"#).blocking
        )
        #expect(
            try !created(#"{"type":"maintenance","starts_at":"\#(time(3601))","ends_at":"\#(time(4000))"}"#).blocking
        )
        #expect(
            try !created(#"{"type":"maintenance","starts_at":"\#(time(-600))","ends_at":"\#(time(0))"}"#).blocking,
            "already ended"
        )
    }

    @Test func editingAWindowIsBlockingWhenItWasOrBecomesImminent() throws {
        let far = #"{"type":"maintenance","starts_at":"\#(time(86_400))","ends_at":"\#(time(90_000))"}"#
        let near = #"{"type":"maintenance","starts_at":"\#(time(600))","ends_at":"\#(time(1200))"}"#
        let farther = #"{"type":"maintenance","starts_at":"\#(time(90_000))","ends_at":"\#(time(95_000))"}"#
        var p = try Fixture.project([far])
        #expect(try p.replaceRule(id: "r1", with: json(farther), now: t(0))?.1.blocking == false)
        #expect(
            try p.replaceRule(id: "r1", with: json(near), now: t(0))?.1.blocking == true,
            "after the change it starts within the hour"
        )
        #expect(
            try p.replaceRule(id: "r1", with: json(far), now: t(0))?.1.blocking == true,
            "before the change it started within the hour"
        )
    }

    @Test func editingOrDeletingARequiredUpdateIsBlockingEvenWhenItBecomesOptional() throws {
        var p = try Fixture.project([
            #"{"type":"required_update","below":"2.0"}"#, #"{"type":"required_update","below":"3.0"}"#,
        ])
        #expect(
            try p.replaceRule(id: "r1", with: json(#"{"type":"optional_update","below":"2.0"}"#), now: t(0))?.1.blocking
                == true
        )
        #expect(
            try p.replaceRule(id: "r1", with: json(#"{"type":"optional_update","below":"2.1"}"#), now: t(1))?.1.blocking
                == false
        )
        #expect(p.deleteRule(id: "r2", now: t(2))?.blocking == true)
        #expect(p.deleteRule(id: "r1", now: t(3))?.blocking == false)
    }

    @Test func liftAllIsBlockingOnlyWhenItLiftedSomething() throws {
        var p = try Fixture.project([
            #"{"type":"maintenance","starts_at":"\#(time(86_400))","ends_at":"\#(time(90_000))"}"#
        ])
        #expect(p.liftAll(now: t(0)).change.blocking, "lifting even a far window counts")
        #expect(!p.liftAll(now: t(1)).change.blocking)
    }
}
