import Clock
import JSON
import Testing

@testable import ReleaseControl

@Suite struct ProjectStateTests {
    let t = Fixture.at
    let json = Fixture.json

    @Test func seedRulesGetIdsAndNewRulesContinueWithoutReuse() throws {
        var p = try Fixture.project([
            #"{"type":"optional_update","below":"1.0"}"#, #"{"type":"optional_update","below":"1.1"}"#,
        ])
        #expect(p.rules.map(\.id) == ["r1", "r2"])
        let (r3, c1) = try p.createRule(json(#"{"type":"required_update","below":"2.0"}"#), now: t(0))
        #expect(r3.id == "r3")
        #expect(c1.id == 1)
        #expect(c1.action == "created required_update r3")
        #expect(c1.ruleId == "r3")
        _ = p.deleteRule(id: "r3", now: t(1))
        let (r4, c3) = try p.createRule(json(#"{"type":"optional_update","below":"2.0"}"#), now: t(2))
        #expect(r4.id == "r4")
        #expect(c3.id == 3)
        #expect(p.revision == 3)
        #expect(p.lastChangeAt == t(2))
    }

    @Test func invalidBodyChangesNothing() throws {
        var p = try Fixture.project([])
        #expect(throws: ValidationFailure.self) { try p.createRule(json(#"{"type":"required_update"}"#), now: t(0)) }
        #expect(p.rules.isEmpty && p.changes.isEmpty && p.revision == 0 && p.nextRuleNumber == 1)
    }

    @Test func replaceKeepsTheIdAndMayChangeTheType() throws {
        var p = try Fixture.project([#"{"type":"optional_update","below":"1.0"}"#])
        let result = try p.replaceRule(id: "r1", with: json(#"{"type":"required_update","below":"3.0"}"#), now: t(0))
        #expect(result?.0.id == "r1")
        #expect(result?.1.action == "updated r1 from optional_update to required_update")
        #expect(p.rules.map(\.type) == [.requiredUpdate])
        #expect(
            try p.replaceRule(id: "r9", with: json("{}"), now: t(0)) == nil,
            "unknown id answers nil before validating"
        )
        #expect(p.deleteRule(id: "r9", now: t(0)) == nil)
        #expect(p.changes.count == 1)
    }

    @Test func changeJSONListsWhatHappened() throws {
        var p = try Fixture.project([])
        let (_, change) = try p.createRule(json(#"{"type":"required_update","below":"2.0"}"#), now: t(0))
        #expect(
            change.json
                == .object([
                    ("id", 1), ("at", .string(Fixture.time(0))), ("kind", "created"),
                    ("action", "created required_update r1"),
                    ("rule", "r1"), ("blocking", true),
                ])
        )
        #expect(Change.restore(change.json) == change)
        #expect(p.changes.count == 1)
    }

    @Test func liftAllRemovesBlockingRulesAndKeepsTheRest() throws {
        var p = try Fixture.project([
            #"{"type":"required_update","below":"2.0"}"#,
            #"{"type":"optional_update","below":"3.0"}"#,
            #"{"type":"recommended_update","below":"3.0","becomes_required_on":"\#(Fixture.time(-10))"}"#,
            #"{"type":"recommended_update","below":"3.0","becomes_required_on":"\#(Fixture.time(10))"}"#,
            #"{"type":"maintenance","starts_at":"\#(Fixture.time(86_400))","ends_at":"\#(Fixture.time(90_000))"}"#,
            #"{"type":"sdk_switch","modules":["all"],"ends_at":"\#(Fixture.time(600))"}"#,
        ])
        let (lifted, change) = p.liftAll(now: t(0))
        #expect(lifted.map(\.id) == ["r1", "r3", "r5"])
        #expect(p.rules.map(\.id) == ["r2", "r4", "r6"])
        #expect(change.blocking)
        #expect(change.kind == .liftedAll)
        #expect(change.lifted == ["r1", "r3", "r5"])
        #expect(change.action == "lift-all lifted required_update r1, recommended_update r3, maintenance r5")
        #expect(Change.restore(change.json) == change)
        let (none, again) = p.liftAll(now: t(1))
        #expect(none.isEmpty)
        #expect(!again.blocking)
        #expect(again.action == "lift-all lifted nothing")
        #expect(p.changes.count == 2)
        #expect(p.lastChangeAt == t(1))
    }

    @Test func restoreRebuildsTheSameProjectAndNeverReusesIds() throws {
        var p = try Fixture.project([#"{"type":"optional_update","below":"1.0"}"#])
        _ = try p.createRule(json(#"{"type":"required_update","below":"2.0"}"#), now: t(0))
        _ = try p.createRule(json(#"{"type":"required_update","below":"2.1"}"#), now: t(1))
        _ = p.deleteRule(id: "r3", now: t(2))
        var rules: [Rule] = []
        for r in p.rules { rules.append(try Rule.restore(r.json)) }
        let changes = p.changes.compactMap { Change.restore($0.json) }
        var q = ProjectState(key: p.key, apnsTopic: nil, fcmProject: nil, rules: rules, changes: changes)
        #expect(q.rules == p.rules)
        #expect(q.changes == p.changes)
        #expect(q.lastChangeAt == t(2))
        #expect(q.nextRuleNumber == 4, "r3 was deleted but is never reused")
        #expect(q.nextChangeId == 4)
        let (rule, change) = try q.createRule(json(#"{"type":"optional_update","below":"1.0"}"#), now: t(3))
        #expect(rule.id == "r4")
        #expect(change.id == 4)
    }

    @Test func projectJSONShowsKeyTopicsAndCounts() throws {
        let p = ProjectState(key: "demo", apnsTopic: "dev.lerix.demo", fcmProject: nil, seedRules: [])
        #expect(
            p.json
                == .object([
                    ("key", "demo"), ("apns_topic", "dev.lerix.demo"), ("fcm_project", .null),
                    ("rule_count", 0), ("change_count", 0), ("last_change_at", .null),
                ])
        )
    }
}

@Suite struct ChangeRestoreTests {
    @Test func restoreRejectsMissingOrMistypedFields() {
        let good = Change(
            id: 3,
            at: Fixture.t0,
            kind: .deleted,
            action: "deleted maintenance r2",
            ruleId: "r2",
            blocking: false
        )
        #expect(Change.restore(good.json) == good)
        guard case .object(let object) = good.json else {
            Issue.record("change json is not an object")
            return
        }
        for (key, bad) in [
            ("id", JSON.string("3")), ("at", "yesterday"), ("kind", "exploded"), ("action", 5), ("rule", 2),
            ("blocking", "no"),
        ] {
            var broken = object
            broken[key] = bad
            #expect(Change.restore(.object(broken)) == nil, "\(key) = \(bad)")
        }
        var missing = object
        missing["at"] = nil
        #expect(Change.restore(.object(missing)) == nil)
    }
}
