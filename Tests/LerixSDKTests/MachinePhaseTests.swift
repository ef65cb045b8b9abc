import Clock
import Foundation
import JSON
import LerixSDK
import Testing

/// The machine's lifecycles as phases: each transition the old flags made, now one enum value to
/// another (app, check, missed check, token registration).
@Suite struct MachinePhaseTests {
    static let now = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)
    static let answer: JSON = ["project": "demo", "server_time": "2026-12-02T11:00:00.000Z", "lifetime": 300]
    static let ok = TransportResult.success(TransportResponse(status: 200, body: answer.serialized()))

    static func machine(pushToken: String? = nil) throws -> ReleaseControlMachine {
        let config = LerixConfiguration(
            baseURL: try #require(URL(string: "http://lerix.test")),
            project: "demo",
            platform: .android,
            appVersion: "2.3.0",
            pushToken: pushToken
        )
        return ReleaseControlMachine(configuration: config, saved: SavedAnswer())
    }

    static func sends(_ actions: [ReleaseControlMachine.Action], _ purpose: ReleaseControlMachine.Purpose) -> Int {
        actions.filter { if case .send(_, let p) = $0 { p == purpose } else { false } }.count
    }

    /// The owner's kept list: handling into it appends exactly the actions `handle` returns,
    /// after what it holds, for a whole life of events (launch, answers, polls, items, end).
    @Test func handlingIntoAKeptListAppendsWhatHandleReturns() throws {
        var returning = try Self.machine(pushToken: "tok")
        var appending = try Self.machine(pushToken: "tok")
        let notModified = TransportResult.success(
            TransportResponse(status: 304, headers: [("Cache-Control", "max-age=60")], body: [])
        )
        let events: [ReleaseControlMachine.Event] = [
            .launch, .completed(.check, Self.ok), .completed(.pushToken, Self.ok), .timer,
            .track(.analytics, [["n": 1]]), .refresh, .completed(.check, notModified),
            .completed(.ingest(.analytics, count: 1), Self.ok), .background, .foreground, .timer, .terminate,
        ]
        var kept: [ReleaseControlMachine.Action] = [.checkSettled]
        var total = 0
        for (n, event) in events.enumerated() {
            let now = Self.now.adding(seconds: Int64(n) * 61)
            let expected = returning.handle(event, now: now, uptimeMilliseconds: Int64(n) * 61_000)
            appending.handle(event, now: now, uptimeMilliseconds: Int64(n) * 61_000, into: &kept)
            #expect(Array(kept.dropFirst()) == expected, "after event \(n)")
            total += expected.count
            kept.removeSubrange(1...)
        }
        #expect(total > events.count)
        #expect(returning.saved == appending.saved)
    }

    @Test func eventsBeforeLaunchLeaveTheAppStopped() throws {
        var machine = try Self.machine()
        _ = machine.handle(.foreground, now: Self.now)
        _ = machine.handle(.background, now: Self.now)
        #expect(machine.app == .stopped && !machine.isRunning && !machine.isForeground)
        #expect(machine.check == .idle)
    }

    @Test func launchRunsInTheForegroundWithOneCheckInFlight() throws {
        var machine = try Self.machine()
        let actions = machine.handle(.launch, now: Self.now)
        #expect(machine.app == .foreground && machine.isRunning && machine.isForeground)
        #expect(machine.check == .inFlight(followUp: false))
        #expect(Self.sends(actions, .check) == 1)
        _ = machine.handle(.background, now: Self.now)
        #expect(machine.app == .background && machine.isRunning && !machine.isForeground)
    }

    @Test func aForegroundDuringACheckJoinsIt() throws {
        var machine = try Self.machine()
        _ = machine.handle(.launch, now: Self.now)
        _ = machine.handle(.background, now: Self.now)
        let actions = machine.handle(.foreground, now: Self.now)
        #expect(machine.check == .inFlight(followUp: false))
        #expect(Self.sends(actions, .check) == 0)
    }

    @Test func pushesDuringACheckOweExactlyOneFollowUp() throws {
        var machine = try Self.machine()
        _ = machine.handle(.launch, now: Self.now)
        let firstPush = machine.handle(.push, now: Self.now)
        let secondPush = machine.handle(.push, now: Self.now)
        #expect(Self.sends(firstPush, .check) == 0 && Self.sends(secondPush, .check) == 0)
        #expect(machine.check == .inFlight(followUp: true))
        let first = machine.handle(.completed(.check, Self.ok), now: Self.now)
        #expect(Self.sends(first, .check) == 1, "the follow-up leaves as the first answer lands")
        #expect(!first.contains(.checkSettled))
        #expect(machine.check == .inFlight(followUp: false))
        let second = machine.handle(.completed(.check, Self.ok), now: Self.now)
        #expect(Self.sends(second, .check) == 0)
        #expect(second.contains(.checkSettled))
        #expect(machine.check == .idle)
    }

    @Test func aPushOfflineIsOwedAsAFollowUpAndSentOnReconnecting() throws {
        var machine = try Self.machine()
        _ = machine.handle(.launch, now: Self.now)
        _ = machine.handle(.completed(.check, Self.ok), now: Self.now)
        _ = machine.handle(.network(online: false), now: Self.now)
        let push = machine.handle(.push, now: Self.now)
        #expect(Self.sends(push, .check) == 0)
        #expect(machine.missedCheck == .owed(followUp: true))
        _ = machine.handle(.foreground, now: Self.now)  // a joining need does not lower the owed follow-up
        #expect(machine.missedCheck == .owed(followUp: true))
        let actions = machine.handle(.network(online: true), now: Self.now)
        #expect(Self.sends(actions, .check) == 1)
        #expect(machine.missedCheck == .none)
        #expect(machine.check == .inFlight(followUp: false))
    }

    @Test func aLaunchOfflineOwesAJoiningCheck() throws {
        var machine = try Self.machine()
        _ = machine.handle(.network(online: false), now: Self.now)
        _ = machine.handle(.launch, now: Self.now)
        #expect(machine.check == .idle)
        #expect(machine.missedCheck == .owed(followUp: false))
        _ = machine.handle(.launch, now: Self.now)  // a new launch forgets what the last one owed, then owes again
        #expect(machine.missedCheck == .owed(followUp: false))
    }

    @Test func tokenRegistrationIsDueUntilTheServerTakesIt() throws {
        var machine = try Self.machine(pushToken: "token-1")
        _ = machine.handle(.launch, now: Self.now)
        #expect(machine.tokenRegistration == .due, "it waits for the first answer, which may pause it")
        let answered = machine.handle(.completed(.check, Self.ok), now: Self.now)
        #expect(Self.sends(answered, .pushToken) == 1)
        #expect(machine.tokenRegistration == .inFlight)
        let failed = machine.handle(.completed(.pushToken, .failure(TransportError("reset"))), now: Self.now)
        #expect(Self.sends(failed, .pushToken) == 1, "a failed registration stays due and is sent again")
        #expect(machine.tokenRegistration == .inFlight)
        _ = machine.handle(
            .completed(.pushToken, .success(TransportResponse(status: 204, body: []))),
            now: Self.now
        )
        #expect(machine.tokenRegistration == .notDue)
    }

    @Test func terminateStopsEverythingAndKeepsAnUnfinishedRegistrationDue() throws {
        var machine = try Self.machine(pushToken: "token-1")
        _ = machine.handle(.launch, now: Self.now)
        _ = machine.handle(.completed(.check, Self.ok), now: Self.now)
        _ = machine.handle(.push, now: Self.now)
        #expect(machine.tokenRegistration == .inFlight)
        let actions = machine.handle(.terminate, now: Self.now)
        #expect(actions.contains(.checkSettled))
        #expect(machine.app == .stopped && machine.check == .idle && machine.isIdle)
        #expect(machine.tokenRegistration == .due)
        _ = machine.handle(.completed(.pushToken, Self.ok), now: Self.now)  // from before the terminate
        #expect(machine.tokenRegistration == .due)
        _ = machine.handle(.completed(.check, Self.ok), now: Self.now)
        #expect(machine.check == .idle)
    }
}
