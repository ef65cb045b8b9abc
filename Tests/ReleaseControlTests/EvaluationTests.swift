import Clock
import JSON
import Testing

@testable import ReleaseControl

@Suite struct EvaluationTests {
    let now = Fixture.t0
    func device(
        _ platform: Platform = .ios,
        _ version: String? = nil,
        sdk: String? = nil,
        sdkVersion: String? = nil
    ) -> Device {
        Fixture.device(platform, version, sdk: sdk, sdkVersion: sdkVersion)
    }
    let time = Fixture.time

    @Test func emptyProjectAnswersNothingWithLifetime300() throws {
        let answer = try Fixture.project([]).evaluate(device(.ios, "1.0"), now: now)
        #expect(
            answer.state
                == .object([
                    ("required_update", .null), ("optional_update", .null), ("maintenance", .array([])),
                    ("sdk_switch", .array([])),
                ])
        )
        #expect(answer.lifetime == 300)
        #expect(answer.validUntil == nil)
    }

    @Test func updateRulesMatchListedPlatformsOrAllWithoutAList() throws {
        let p = try Fixture.project([
            #"{"type":"required_update","platforms":["android"],"below":"2.0"}"#,
            #"{"type":"optional_update","below":"3.0"}"#,
        ])
        #expect(p.evaluate(device(.android, "1.0"), now: now).requiredRule == "r1")
        #expect(p.evaluate(device(.ios, "1.0"), now: now).requiredRule == nil)
        #expect(p.evaluate(device(.ios, "1.0"), now: now).optionalRule == "r2")
        #expect(p.evaluate(device(.web, "1.0"), now: now).optionalRule == "r2")
    }

    @Test func versionMustBeStrictlyBelow() throws {
        let p = try Fixture.project([#"{"type":"required_update","below":"2.4.0"}"#])
        #expect(p.evaluate(device(.ios, "2.3.9"), now: now).requiredRule == "r1")
        #expect(p.evaluate(device(.ios, "2.4.0-rc.1"), now: now).requiredRule == "r1")
        #expect(p.evaluate(device(.ios, "2.4"), now: now).requiredRule == nil)
        #expect(p.evaluate(device(.ios, "2.10"), now: now).requiredRule == nil)
    }

    @Test func deviceWithoutOrWithGarbageVersionMatchesNoUpdateRule() throws {
        let p = try Fixture.project([
            #"{"type":"required_update","below":"99.0"}"#,
            #"{"type":"optional_update","below":"99.0"}"#,
        ])
        for d in [device(.ios, nil), device(.ios, ""), device(.ios, "latest")] {
            let a = p.evaluate(d, now: now)
            #expect(a.state["required_update"] == .null)
            #expect(a.state["optional_update"] == .null)
        }
    }

    @Test func highestBelowWinsAmongRequiredAndAmongOptional() throws {
        let p = try Fixture.project([
            #"{"type":"required_update","below":"2.0","message":"low"}"#,
            #"{"type":"required_update","below":"2.10","message":"high"}"#,
            #"{"type":"required_update","below":"2.9"}"#,
        ])
        let a = p.evaluate(device(.ios, "1.0"), now: now)
        #expect(a.requiredRule == "r2")
        #expect(a.state["required_update"]?["below"] == "2.10")
        #expect(a.state["required_update"]?["message"] == "high")
        let q = try Fixture.project([
            #"{"type":"optional_update","below":"3.0"}"#,
            #"{"type":"recommended_update","below":"3.1","becomes_required_on":"\#(time(3600))"}"#,
        ])
        #expect(q.evaluate(device(.ios, "1.0"), now: now).optionalRule == "r2")
    }

    @Test func requiredAnswerHasItsFieldsInContractOrder() throws {
        let p = try Fixture.project([
            #"{"type":"required_update","below":"2.4.0","store_url":"https://s","message":"m"}"#
        ])
        let part = p.evaluate(device(.ios, "1.0"), now: now).state["required_update"]
        #expect(part == .object([("rule", "r1"), ("below", "2.4.0"), ("store_url", "https://s"), ("message", "m")]))
    }

    @Test func recommendedAnswersAsOptionalBeforeItsDeadlineAndAsRequiredFromTheInstant() throws {
        let deadline = Fixture.at(600)
        let p = try Fixture.project([
            #"{"type":"recommended_update","below":"2.0","becomes_required_on":"\#(deadline.rfc3339)","message":"soon"}"#
        ])
        let before = p.evaluate(device(.ios, "1.0"), now: deadline.adding(milliseconds: -1))
        #expect(
            before.state["optional_update"]
                == .object([
                    ("rule", "r1"), ("kind", "recommended"), ("below", "2.0"), ("store_url", .null),
                    ("message", "soon"),
                    ("becomes_required_on", .string(deadline.rfc3339)),
                ])
        )
        #expect(before.requiredRule == nil)
        #expect(before.validUntil == deadline)
        let at = p.evaluate(device(.ios, "1.0"), now: deadline)
        #expect(at.requiredRule == "r1")
        #expect(at.state["optional_update"] == .null)
        #expect(at.state["required_update"]?["message"] == "soon")
    }

    @Test func optionalPartShowsKindOptionalAndNullDeadline() throws {
        let p = try Fixture.project([#"{"type":"optional_update","below":"2.0"}"#])
        let part = p.evaluate(device(.ios, "1.0"), now: now).state["optional_update"]
        #expect(part?["kind"] == "optional")
        #expect(part?["becomes_required_on"] == .null)
    }

    @Test func optionalIsNullWhenARequiredUpdateApplies() throws {
        let p = try Fixture.project([
            #"{"type":"required_update","below":"2.0"}"#,
            #"{"type":"optional_update","below":"3.0"}"#,
        ])
        let a = p.evaluate(device(.ios, "1.0"), now: now)
        #expect(a.requiredRule == "r1")
        #expect(a.state["optional_update"] == .null)
        // Above the required one, the optional one shows.
        #expect(p.evaluate(device(.ios, "2.5"), now: now).optionalRule == "r2")
    }

    @Test func maintenanceListsCurrentAndUpcomingWindowsForThePlatformEarliestFirst() throws {
        let p = try Fixture.project([
            #"{"type":"maintenance","starts_at":"\#(time(7200))","ends_at":"\#(time(9000))"}"#,
            #"{"type":"maintenance","starts_at":"\#(time(-600))","ends_at":"\#(time(600))","message":"now"}"#,
            #"{"type":"maintenance","platforms":["android"],"starts_at":"\#(time(60))","ends_at":"\#(time(120))"}"#,
            #"{"type":"maintenance","starts_at":"\#(time(-7200))","ends_at":"\#(time(0))"}"#,
        ])
        let ios = p.evaluate(device(.ios), now: now)
        #expect(ios.maintenanceRules == ["r2", "r1"])
        #expect(
            ios.state["maintenance"]?.arrayValue?.first
                == .object([
                    ("rule", "r2"), ("starts_at", .string(time(-600))), ("ends_at", .string(time(600))),
                    ("message", "now"),
                ])
        )
        #expect(p.evaluate(device(.android), now: now).maintenanceRules == ["r2", "r3", "r1"])
    }

    @Test func switchWithoutSDKListMatchesEveryDevice() throws {
        let p = try Fixture.project([#"{"type":"sdk_switch","modules":["all"],"ends_at":"\#(time(600))"}"#])
        #expect(p.evaluate(device(.web), now: now).switchRules == ["r1"])
        #expect(
            p.evaluate(device(.ios, sdk: "swift"), now: now).state["sdk_switch"]
                == .array([
                    .object([("rule", "r1"), ("modules", ["all"]), ("ends_at", .string(time(600)))])
                ])
        )
    }

    @Test func switchMatchesTheSDKNameAndVersionBelow() throws {
        let p = try Fixture.project([
            #"{"type":"sdk_switch","sdks":[{"name":"swift","below":"1.4.2"}],"modules":["analytics"],"ends_at":"\#(time(600))"}"#,
            #"{"type":"sdk_switch","sdks":[{"name":"kotlin"}],"modules":["errors"],"ends_at":"\#(time(600))"}"#,
        ])
        #expect(p.evaluate(device(.ios, sdk: "swift", sdkVersion: "1.4.1"), now: now).switchRules == ["r1"])
        #expect(p.evaluate(device(.ios, sdk: "swift", sdkVersion: "1.4.2"), now: now).switchRules == [])
        #expect(
            p.evaluate(device(.ios, sdk: "swift"), now: now).switchRules == [],
            "no sdk_version: no match for an entry with below"
        )
        #expect(p.evaluate(device(.ios, sdk: "swift", sdkVersion: "garbage"), now: now).switchRules == [])
        #expect(p.evaluate(device(.android, sdk: "kotlin"), now: now).switchRules == ["r2"])
        #expect(p.evaluate(device(.android, sdk: "kotlin", sdkVersion: "9.9"), now: now).switchRules == ["r2"])
        #expect(p.evaluate(device(.ios), now: now).switchRules == [], "no sdk: no match for a list")
        #expect(p.evaluate(device(.ios, sdk: "Swift", sdkVersion: "1.0"), now: now).switchRules == [])
    }

    @Test func switchEndsAtItsEndTime() throws {
        let p = try Fixture.project([#"{"type":"sdk_switch","modules":["tracing"],"ends_at":"\#(time(600))"}"#])
        let before = p.evaluate(device(.ios), now: Fixture.at(600).adding(milliseconds: -1))
        #expect(before.switchRules == ["r1"])
        #expect(before.validUntil == Fixture.at(600))
        #expect(p.evaluate(device(.ios), now: Fixture.at(600)).switchRules == [])
    }
}

@Suite struct TieBreakTests {
    @Test func equalBelowGoesToTheRuleCreatedFirst() throws {
        let p = try Fixture.project([
            #"{"type":"required_update","below":"2.0.0","message":"first"}"#,
            #"{"type":"required_update","below":"2.0","message":"second"}"#,
        ])
        #expect(p.evaluate(Fixture.device(.ios, "1.0"), now: Fixture.t0).requiredRule == "r1")
    }

    @Test func windowsStartingTogetherSortByEndThenCreation() throws {
        let p = try Fixture.project([
            #"{"type":"maintenance","starts_at":"\#(Fixture.time(60))","ends_at":"\#(Fixture.time(900))"}"#,
            #"{"type":"maintenance","starts_at":"\#(Fixture.time(60))","ends_at":"\#(Fixture.time(600))"}"#,
            #"{"type":"maintenance","starts_at":"\#(Fixture.time(60))","ends_at":"\#(Fixture.time(600))"}"#,
        ])
        #expect(p.evaluate(Fixture.device(.ios), now: Fixture.t0).maintenanceRules == ["r2", "r3", "r1"])
    }
}
