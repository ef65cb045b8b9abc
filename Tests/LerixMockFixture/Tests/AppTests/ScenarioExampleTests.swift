import Foundation
import LerixMock
import LerixSDK
import Testing

// The bundled Scenarios/ behaviours as Swift tests, with only the public API of LerixMock and
// LerixSDK: each test owns its mock (its own server, its own clock), so they run in parallel.

@Suite struct ScenarioExampleTests {
    /// Scenarios/offline-required-keeps-blocking.yaml
    @Test func aRequiredUpdateKeepsBlockingOfflineUntilASuccessfulCheckLiftsIt() async throws {
        let mock = try LerixMock()
        let app = mock.makeApp(platform: .ios, appVersion: "2.3.0")
        let block = try mock.create(RequiredUpdateRule(below: "2.4.0", message: "Please update"))
        #expect(await app.start().screen == .requiredUpdate)
        _ = await app.networkReachabilityChanged(isReachable: false)
        try mock.deleteRule(block)
        try await mock.advance(by: .days(7))
        #expect(app.state.screen == .requiredUpdate, "offline, the saved block stays")
        _ = await app.networkReachabilityChanged(isReachable: true)
        #expect(await app.refresh().screen == .none)
    }

    /// Scenarios/offline-optional-dropped-after-7-days.yaml
    @Test func anOptionalUpdateIsDroppedSevenDaysAfterTheLastSuccessfulCheck() async throws {
        let mock = try LerixMock()
        let app = mock.makeApp(platform: .android, appVersion: "2.3.0")
        try mock.create(OptionalUpdateRule(below: "2.5.0"))
        #expect(await app.start().screen == .optionalUpdate)
        _ = await app.networkReachabilityChanged(isReachable: false)
        try await mock.advance(by: .days(6))
        #expect(app.state.optionalUpdate != nil, "six days: still shown from the saved answer")
        try await mock.advance(by: .days(1) + .minutes(1))
        #expect(app.state.optionalUpdate == nil && app.state.screen == .none)
    }

    /// Scenarios/maintenance-always-ends.yaml and offline-maintenance-window.yaml
    @Test func aMaintenanceWindowStartsAndEndsOnTheDeviceEvenOffline() async throws {
        let mock = try LerixMock()
        let app = mock.makeApp(platform: .macos, appVersion: "2.3.0")
        try mock.create(
            MaintenanceRule(from: mock.now.addingTimeInterval(3600), until: mock.now.addingTimeInterval(7200))
        )
        #expect(await app.start().screen == .none)
        _ = await app.networkReachabilityChanged(isReachable: false)
        try await mock.advance(by: .hours(1) + .seconds(1))
        #expect(app.state.screen == .maintenance)
        try await mock.advance(by: .hours(1))
        #expect(app.state.screen == .none)
    }

    /// Scenarios/silent-push-wakes-background-app.yaml: the push reaches the app in process.
    @Test func aBlockingChangePushesAndTheBackgroundAppChecksAtOnce() async throws {
        let mock = try LerixMock()
        let app = mock.makeApp(platform: .ios, appVersion: "2.3.0", pushToken: String(repeating: "ab", count: 32))
        _ = await app.start()
        _ = await app.enterBackground()
        try mock.create(RequiredUpdateRule(below: "2.4.0"))
        #expect(app.state.screen == .requiredUpdate, "the push made the app check before create returned")
        #expect(try mock.pushes().count == 1)
        #expect(try mock.journal().count == 2)
    }

    /// Scenarios/failed-checks-are-reported.yaml: the server's problem+json and faults, typed.
    @Test func aFaultIsReportedAndABadRuleIsAProblemWithItsPointer() async throws {
        let mock = try LerixMock()
        let app = mock.makeApp(platform: .web, appVersion: "4.0.0", sdkName: "js")
        try mock.addFault(.status(503, count: 1))
        _ = await app.start()
        #expect(app.state.lastCheckFailure?.status == 503)
        #expect(try mock.journal().map(\.status) == [503])
        #expect(throws: MockProblem.self) { try mock.create(RequiredUpdateRule(below: "two")) }
        do throws(MockProblem) {
            try mock.create(MaintenanceRule(from: mock.now, until: mock.now.addingTimeInterval(9 * 86_400)))
            Issue.record("a 9-day window was accepted")
        } catch {
            #expect(error.status == 422 && error.errors.contains { $0.pointer == "/ends_at" }, "\(error)")
        }
    }

    /// Scenarios/week-in-the-life.yaml: a week, block and lift, in well under a second.
    @Test func aWeekWithABlockAndALiftRunsWithoutSleeping() async throws {
        let mock = try LerixMock()
        let app = mock.makeApp(platform: .android, appVersion: "2.3.0", pushToken: "fcm-week")
        _ = await app.start()
        for day in 1...7 {
            if day == 3 { try mock.create(RequiredUpdateRule(below: "2.4.0")) }
            if day == 5 { #expect(try mock.liftAll().count == 1) }
            _ = await app.enterForeground()
            #expect(app.state.screen == (day == 3 || day == 4 ? .requiredUpdate : .none), "day \(day)")
            _ = await app.enterBackground()
            try await mock.advance(by: .days(1))
        }
        #expect(try mock.journal().count >= 7)
        #expect(try mock.ingestCounts().isEmpty)
    }
}
