import Foundation
import LerixMock
import LerixSDK
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The library's own promises beyond the fixture's examples: the loopback port, time that only
// goes forward, state export and import, problems as errors, mocks that share nothing.

@Suite struct LerixMockTests {
    /// `listen()` serves the same server: an app on the SDK's default URLSession transport and
    /// system clock reaches it, and its checks land in the same journal.
    @Test func listenServesTheSameServerToURLSession() async throws {
        let mock = try LerixMock()
        defer { mock.shutdown() }
        let url = try mock.listen()
        #expect(try mock.listen() == url, "a second listen keeps the port")
        try mock.create(RequiredUpdateRule(below: "2.4.0"))
        // Past the recent-change window, so the answer lives 300 s, not 60: this app lives in
        // true time, and a parallel `swift test` on a busy machine can hold this task more than a
        // minute before it reads the counts, long enough for a right foreground poll at 60 s.
        try await mock.advance(by: .seconds(30 * 60 + 1))  // the spec's 30 minutes of a recent change
        let lerix = Lerix(
            configuration: LerixConfiguration(baseURL: url, project: "demo", platform: .ios, appVersion: "2.3.0"),
            storage: InMemoryStorage()
        )
        // Issue 17: start() then enterForeground() back to back make one check.
        let launch: () -> Void = { lerix.start() }  // the form that does not wait
        launch()
        let state = await lerix.enterForeground()
        #expect(state.screen == .requiredUpdate)
        #expect(try mock.journal().count == 1)
        #expect(lerix.statistics.checks == 1)

        var request = URLRequest(url: url.appendingPathComponent("admin/projects/demo/rules"))
        request.httpMethod = "GET"
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("\"required_update\""))
    }

    /// A change made with curl on the port pushes to the mock's in-process apps too.
    @Test func aChangeMadeOverThePortPushesToTheApps() async throws {
        let mock = try LerixMock()
        defer { mock.shutdown() }
        let url = try mock.listen()
        let app = mock.makeApp(platform: .ios, appVersion: "2.3.0", pushToken: "apns-curl")
        _ = await app.start()
        _ = await app.enterBackground()
        let updates = app.stateUpdates
        let blocked = Task {
            for await state in updates where state.screen == .requiredUpdate { return true }
            return false
        }
        // Not a timing test: a push that never comes ends the wait as a failure instead of a hang.
        let giveUp = Task {
            try await Task.sleep(for: .seconds(20))
            blocked.cancel()
        }
        defer { giveUp.cancel() }
        var request = URLRequest(url: url.appendingPathComponent("admin/projects/demo/rules"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")  // admin writes take JSON only
        request.httpBody = Data(#"{"type": "required_update", "below": "2.4.0"}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(await blocked.value, "the push reached the app and it checked")
        #expect(try mock.journal().count == 2, "the launch's check and the push's")
    }

    @Test func timeOnlyGoesForward() async throws {
        let mock = try LerixMock()
        let before = mock.now
        await #expect(throws: MockProblem.self) { try await mock.advance(to: before.addingTimeInterval(-1)) }
        #expect(mock.now == before)
        try await mock.advance(by: .milliseconds(1500))
        #expect(mock.now == before.addingTimeInterval(1.5))
        try await mock.advance(to: before.addingTimeInterval(86_400))
        #expect(mock.now == before.addingTimeInterval(86_400))
    }

    @Test func exportResetImportRoundTripsAndABadSnapshotChangesNothing() throws {
        let mock = try LerixMock(project: "shop")
        try mock.create(OptionalUpdateRule(below: "3.0.0", platforms: [.android], message: "New"))
        let snapshot = try mock.exportState()
        try mock.reset()
        #expect(try mock.rules().isEmpty)
        try mock.importState(snapshot)
        #expect(try mock.rules().map(\.type) == ["optional_update"])
        #expect(throws: MockProblem.self) { try mock.importState(Data(#"{"projects": 3}"#.utf8)) }
        #expect(try mock.rules().count == 1, "a refused snapshot changes nothing")
    }

    @Test func replaceKeepsTheIdAndValidatesTheNewBody() throws {
        let mock = try LerixMock()
        let id = try mock.create(RequiredUpdateRule(below: "2.4.0"))
        try mock.replaceRule(id, with: RequiredUpdateRule(below: "2.5.0"))
        let rule = try #require(try mock.rules().first)
        #expect(rule.id == id && String(decoding: rule.json, as: UTF8.self).contains("2.5.0"))
        #expect(throws: MockProblem.self) { try mock.replaceRule(id, with: OptionalUpdateRule(below: "two")) }
        #expect(
            String(decoding: try #require(try mock.rules().first).json, as: UTF8.self).contains("2.5.0"),
            "a refused body changes nothing"
        )
        do throws(MockProblem) {
            try mock.deleteRule("r99")
            Issue.record("deleting a rule that is not there succeeded")
        } catch {
            #expect(error.status == 404)
        }
    }

    @Test func anyEndpointAsCurlWouldCallIt() throws {
        let mock = try LerixMock()
        let state = try mock.call("GET", "/admin/state")
        #expect(String(decoding: state, as: UTF8.self).contains("\"demo\""))
        do throws(MockProblem) {
            try mock.call(
                "POST",
                "/admin/projects/demo/rules",
                body: Data(#"{"type": "required_update", "below": 2}"#.utf8)
            )
            Issue.record("a number for `below` was accepted")
        } catch {
            #expect(error.status == 400, "a wrong JSON type is 400 (docs/CONTRACT.md)")
            #expect(error.errors.contains { $0.pointer == "/below" }, "\(error)")
            #expect(error.description.contains("/below"))
        }
    }

    @Test func aProjectKeyTheServerWouldRefuseIsAProblem() {
        #expect(throws: MockProblem.self) { try LerixMock(project: "no spaces") }
    }

    /// Runs repeat: a mock starts at 2026-12-02T09:00:00Z unless told (the scenario runner's
    /// in-process server starts at the same instant, ``ServerClock/virtualStart``).
    @Test func aMockStartsAtTheFixedVirtualStart() throws {
        #expect(LerixMock.defaultStart == Date(timeIntervalSince1970: 1_796_202_000))
        #expect(try LerixMock().now == LerixMock.defaultStart)
    }

    /// Each mock is its own server and clock: parallel tests share nothing.
    @Test func twoMocksShareNothing() async throws {
        let first = try LerixMock()
        let second = try LerixMock()
        try first.create(RequiredUpdateRule(below: "2.4.0"))
        try await first.advance(by: .days(1))
        #expect(try second.rules().isEmpty)
        #expect(second.now == LerixMock.defaultStart && first.now > second.now)
        let app = second.makeApp(platform: .ios, appVersion: "2.3.0")
        #expect(await app.start().screen == .none)
        #expect(try first.journal().isEmpty)
    }

    /// A device clock set wrong: the app corrects with the server's time, so a window still
    /// starts when the server says.
    @Test func anAppWithAClockOffStillSeesTheWindowOnTime() async throws {
        let mock = try LerixMock()
        let app = mock.makeApp(platform: .android, appVersion: "2.3.0", clockOffset: .hours(-5))
        try mock.create(
            MaintenanceRule(from: mock.now.addingTimeInterval(600), until: mock.now.addingTimeInterval(1_200))
        )
        #expect(await app.start().screen == .none)
        try await mock.advance(by: .minutes(10) + .seconds(1))
        #expect(app.state.screen == .maintenance)
    }

    /// Pushes, their per-token results, the changes behind them, tokens and projects, typed.
    @Test func pushesResultsChangesTokensAndProjects() async throws {
        let mock = try LerixMock()
        let app = mock.makeApp(platform: .ios, appVersion: "2.3.0", pushToken: "apns-a")
        _ = await app.start()
        try mock.registerPushToken("fcm-b", platform: .android)
        #expect(Set(try mock.pushTokens()) == ["apns-a", "fcm-b"])
        let rule = try mock.create(RequiredUpdateRule(below: "2.4.0"))
        let push = try #require(try mock.pushes().first)
        #expect(
            push.tokens == ["ios": 1, "android": 1] && push.delivered == 2 && push.failed == 0 && push.pending == 0
        )
        #expect(try mock.pushResults(push.id).map(\.result) == ["delivered", "delivered"])
        let change = try #require(try mock.changes().last)
        #expect(change.kind == "created" && change.rule == rule && change.blocking && push.changes == [change.id])
        #expect(throws: MockProblem.self) { try mock.pushResults(99) }

        try mock.createProject("shop", fcmProject: "lerix-shop")
        #expect(try mock.projects() == ["demo", "shop"])
        #expect(throws: MockProblem.self) { try mock.createProject("bad key") }
    }
}
