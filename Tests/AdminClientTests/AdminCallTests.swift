import AdminClient
import Clock
import JSON
import Testing

/// The wire of each admin call, pinned: the same method, path and body the runner, LerixMock
/// and the adapter host sent when each wrote its own (docs/CONTRACT.md's routes).
@Suite struct AdminCallTests {
    static let t = Instant(rfc3339: "2026-12-02T09:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    static func wire<A>(_ call: AdminCall<A>) -> String {
        call.description + (call.body.map { " " + $0.serializedString } ?? "")
    }

    @Test func serverWideCallsKeepTheirWire() {
        #expect(Self.wire(Admin.reset()) == "POST /admin/reset")
        #expect(Self.wire(Admin.reset(now: Self.t)) == #"POST /admin/reset {"now":"2026-12-02T09:00:00.000Z"}"#)
        #expect(Self.wire(Admin.clock) == "GET /admin/clock")
        #expect(Self.wire(Admin.clockAnswer) == "GET /admin/clock")
        #expect(Self.wire(Admin.setClock(to: Self.t)) == #"POST /admin/clock {"set":"2026-12-02T09:00:00.000Z"}"#)
        #expect(
            Self.wire(Admin.journal(project: "demo", limit: 100_000)) == "GET /admin/requests?project=demo&limit=100000"
        )
        #expect(Self.wire(Admin.projects) == "GET /admin/projects")
        #expect(Self.wire(Admin.putProject("p")) == "PUT /admin/projects/p {}")
        #expect(
            Self.wire(Admin.putProject("p", apnsTopic: "dev.lerix.p", fcmProject: "lerix-p"))
                == #"PUT /admin/projects/p {"apns_topic":"dev.lerix.p","fcm_project":"lerix-p"}"#
        )
        #expect(Self.wire(Admin.pushGateways) == "GET /admin/push-gateways")
        #expect(
            Self.wire(Admin.setPushGateways(.object([("apns", .null)]))) == #"PUT /admin/push-gateways {"apns":null}"#
        )
        #expect(Admin.statePath == "/admin/state")
    }

    @Test func projectCallsKeepTheirWire() {
        let demo = Admin.project("demo")
        let rule: JSON = .object([("type", "required_update"), ("below", "2.0.0")])
        #expect(Self.wire(demo.settings) == "GET /admin/projects/demo")
        #expect(
            Self.wire(demo.createRule(rule))
                == #"POST /admin/projects/demo/rules {"type":"required_update","below":"2.0.0"}"#
        )
        #expect(Self.wire(demo.createRule(nil)) == "POST /admin/projects/demo/rules")
        #expect(Self.wire(demo.replaceRule("r1", with: nil)) == "PUT /admin/projects/demo/rules/r1")
        #expect(Self.wire(demo.deleteRule("r1")) == "DELETE /admin/projects/demo/rules/r1")
        #expect(Self.wire(demo.rules) == "GET /admin/projects/demo/rules")
        #expect(Self.wire(demo.liftAll) == "POST /admin/projects/demo/lift-all")
        #expect(
            Self.wire(demo.addFault(.object([("kind", "reset")])))
                == #"POST /admin/projects/demo/faults {"kind":"reset"}"#
        )
        #expect(Self.wire(demo.clearFaults) == "DELETE /admin/projects/demo/faults")
        #expect(Self.wire(demo.pushes()) == "GET /admin/projects/demo/pushes")
        #expect(Self.wire(demo.pushes(after: 7)) == "GET /admin/projects/demo/pushes?after=7")
        #expect(Self.wire(demo.pushResults(3)) == "GET /admin/projects/demo/pushes/3/results")
        #expect(Self.wire(demo.pushTokens) == "GET /admin/projects/demo/push-tokens")
        #expect(Self.wire(demo.changes) == "GET /admin/projects/demo/changes")
        #expect(Self.wire(demo.ingest) == "GET /admin/projects/demo/ingest")
        #expect(
            Self.wire(demo.registerPushToken("t1", platform: "ios"))
                == #"PUT /v1/projects/demo/push-tokens/t1 {"platform":"ios"}"#
        )
        #expect(Self.wire(demo.unregisterPushToken("t1")) == "DELETE /v1/projects/demo/push-tokens/t1")
    }

    @Test func answersReadAsTheirTypes() throws {
        let demo = Admin.project("demo")
        #expect(try demo.createRule(nil).answer(from: .object([("id", "r4")])) == "r4")
        #expect(try demo.createRule(nil).answer(from: .object([("id", 4)])) == "4")
        #expect(try demo.createRule(nil).answer(from: .null) == nil)
        #expect(
            ProjectAdmin.liftedIDs(.object([("lifted", [.object([("id", "r1")]), .object([("id", "r3")])])])) == [
                "r1", "r3",
            ]
        )
        #expect(try Admin.projects.answer(from: .object([("projects", [.object([("key", "demo")])])])) == ["demo"])
        let page = try demo.pushes().answer(
            from: .object([("pushes", [1, 2]), ("next", "/admin/projects/demo/pushes?after=2")])
        )
        #expect(page.items == [1, 2] && page.next == "/admin/projects/demo/pushes?after=2")
        #expect(page.nextCall.map(Self.wire) == "GET /admin/projects/demo/pushes?after=2")
        #expect(try demo.pushes().answer(from: .object([("pushes", []), ("next", .null)])).nextCall == nil)
        #expect(try demo.ingest.answer(from: .object([("ingest", .object([("errors", 2)]))]))["errors"] == 2)
    }

    /// An older or other server's clock answer is refused with what is missing.
    @Test func aClockAnswerWithoutItsFieldsSaysWhatIsMissing() throws {
        let full: JSON = .object([
            ("now", "2026-12-02T09:00:00.000Z"), ("next_deadline", .null), ("pushes_in_flight", 0),
        ])
        let state = try Admin.clock.answer(from: full)
        #expect(state.now == Self.t && state.nextDeadline == nil && state.pushesInFlight == 0)
        #expect(throws: AdminAnswerError.self) { try Admin.clock.answer(from: .object([("now", "soon")])) }
        do {
            _ = try Admin.setClock(to: Self.t).answer(from: .object([("now", "2026-12-02T09:00:00.000Z")]))
            Issue.record("an answer without pushes_in_flight was read")
        } catch {
            #expect(error.message.hasPrefix("the server's clock answer has no pushes_in_flight"))
        }
    }
}
