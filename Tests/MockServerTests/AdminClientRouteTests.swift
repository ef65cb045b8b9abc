import AdminClient
import Clock
import JSON
import Testing

@testable import MockServer

/// AdminClient's calls (what LerixMock, the scenario runner and the adapter host send) are the
/// server's routes: each is answered 2xx by a real MockServer, and its answer reads as typed.
@Suite struct AdminClientRouteTests {
    @Test func everyCallIsAnsweredAndItsAnswerReads() throws {
        let h = try Harness(sink: PointableSink())
        func send<Answer>(_ call: AdminCall<Answer>) throws -> Answer {
            let response = h.call(call.method, call.path, body: call.body?.serializedString)
            #expect((200..<300).contains(response.status), "\(call.description) answered \(response.status)")
            return try call.answer(from: response.json ?? .null)
        }
        let demo = Admin.project(StateSnapshot.defaultProjectKey)
        #expect(try send(Admin.projects) == ["demo"])
        try send(Admin.putProject("other", apnsTopic: "dev.lerix.other", fcmProject: "lerix-other"))
        #expect(try send(Admin.projects) == ["demo", "other"])
        #expect(try send(Admin.project("other").settings)["apns_topic"] == "dev.lerix.other")

        let blocking: JSON = .object([("type", "required_update"), ("below", "2.0.0")])
        #expect(try send(demo.createRule(blocking)) == "r1")
        try send(demo.replaceRule("r1", with: .object([("type", "required_update"), ("below", "3.0.0")])))
        #expect(try send(demo.rules).map { $0["below"] } == ["3.0.0"])
        #expect(ProjectAdmin.liftedIDs(try send(demo.liftAll)) == ["r1"])
        #expect(try send(demo.createRule(.object([("type", "optional_update"), ("below", "1.0.0")]))) == "r2")
        try send(demo.deleteRule("r2"))
        #expect(try send(demo.changes).items.count == 5, "created, updated, lifted, created, deleted")

        try send(demo.addFault(.object([("kind", "status"), ("status", 503)])))
        try send(demo.clearFaults)

        try send(demo.registerPushToken("tok-1", platform: "android"))
        #expect(try send(demo.pushTokens).items.map { $0["token"] } == ["tok-1"])
        try send(demo.unregisterPushToken("tok-1"))
        #expect(try send(demo.pushTokens).items.isEmpty)
        // The blocking changes above made pushes (to no token yet).
        let pushes = try send(demo.pushes()).items
        let last = try #require(pushes.last?["id"]?.intValue)
        #expect(try send(demo.pushResults(last)).items.isEmpty)
        #expect(try send(demo.pushes(after: last)).items.isEmpty)

        #expect(h.post("/v1/projects/demo/ingest/errors", #"[{}, {}]"#).status == 202)
        #expect(try send(demo.ingest)["errors"] == 2)
        #expect(h.check("platform=ios&version=1.0.0").status == 200)
        #expect(try send(Admin.journal(project: "demo", limit: 10)).count == 1)

        let clock = try send(Admin.clock)
        #expect(clock.now == Harness.start && clock.pushesInFlight == 0)
        #expect(try send(Admin.clockAnswer)["mode"] == "manual")
        let later = Harness.start.adding(seconds: 90)
        #expect(try send(Admin.setClock(to: later)).now == later)

        try send(Admin.setPushGateways(.object([("apns", "http://127.0.0.1:9"), ("fcm", .null)])))
        #expect(try send(Admin.pushGateways)["apns"] == "http://127.0.0.1:9")

        #expect(h.get(Admin.statePath).status == 200)
        let reset = try send(Admin.reset(now: later.adding(seconds: 60)))
        #expect(reset["now"] == .string(later.adding(seconds: 60).rfc3339))
        #expect(try send(demo.rules).isEmpty)
    }

    /// A listing longer than a page: the `next` link is followed with the same reading.
    @Test func aPagesNextCallReadsTheNextPage() throws {
        let h = try Harness()
        let demo = Admin.project("demo")
        for n in 0..<3 {
            let call = demo.registerPushToken("tok-\(n)", platform: "ios")
            #expect(h.call(call.method, call.path, body: call.body?.serializedString).status == 204)
        }
        let first = Admin.page(demo.pushTokens.path + "?limit=2", items: "push_tokens")
        let page = try first.answer(from: h.get(first.path).json ?? .null)
        #expect(page.items.count == 2)
        let next = try #require(page.nextCall)
        let rest = try next.answer(from: h.get(next.path).json ?? .null)
        #expect(rest.items.map { $0["token"] } == ["tok-2"] && rest.nextCall == nil)
    }
}
