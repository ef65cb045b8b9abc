import AdminClient
import Clock
import JSON
import ScenarioLanguage
import TestSupport
import Testing

@testable import ScenarioRunner

/// In process a scenario's verdict depends on virtual time alone: a push gateway that answers
/// late, as it does when the machine is starved, makes the run slower, never its verdict other.
@Suite struct StarvedGatewayTests {
    /// The in-process environment with the server's pushes sent through a relay that holds each
    /// connection still for 2.5 s before its first byte. That is longer than the push client's
    /// connect timeout was (2 s): with its retries, both pushes of push-throttle-combines-changes
    /// failed and the phone made 1 check instead of 3, as in a loaded `make test` once.
    final class LaggingGatewayEnvironment: ScenarioEnvironment {
        let inner = InProcessEnvironment()
        var relays: [LaggingRelay] = []
        var worldsAreIndependent: Bool { true }

        func hello() throws -> JSON { try inner.hello() }

        func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
            var world = try inner.makeWorld(for: scenario)
            let url = try #require(world.gateway.url)
            let port = try #require(url.split(separator: ":").last.flatMap { Int($0) })
            let relay = try LaggingRelay(to: port, lag: .milliseconds(2_500))
            relays.append(relay)
            try world.server.admin(
                Admin.setPushGateways(.object([("apns", .string(relay.url)), ("fcm", .string(relay.url))]))
            )
            let close = world.close
            world.close = {
                close()
                relay.stop()
            }
            return world
        }
    }

    @Test func aGatewayThatAnswersLateGivesTheVerdictOfOneThatAnswersAtOnce() throws {
        var suite = try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder])
        suite.scenarios = suite.scenarios.filter { $0.file.hasSuffix("push-throttle-combines-changes.yaml") }
        try #require(suite.scenarios.count == 1)
        let prompt = SuiteRunner(options: SuiteOptions()).run(suite, in: InProcessEnvironment())
        let environment = LaggingGatewayEnvironment()
        let late = SuiteRunner(options: SuiteOptions(verbose: true)).run(suite, in: environment)
        let outcome = try #require(late.outcomes.first)
        #expect(
            outcome.status == .passed,
            "\(outcome.failure)\n\(outcome.log.suffix(40).joined(separator: "\n"))"
        )
        #expect(late.outcomes.map(\.statusName) == prompt.outcomes.map(\.statusName))
        #expect(outcome.checks == prompt.outcomes.first?.checks)
        // The pushes did go through the lagging relay.
        #expect(environment.relays.count == 1 && environment.relays.allSatisfy { $0.connections >= 1 })
    }

    /// Where a world's server lives decides how long the runner waits for its pushes: in this
    /// process as long as it takes, against a running server 60 s, then a clear error.
    @Test func onlyARunningServerBoundsTheWaitForItsPushes() throws {
        let scenario = try #require(try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder]).scenarios.first)
        let world = try InProcessEnvironment().makeWorld(for: scenario)
        defer { world.close() }
        #expect(world.pushWaitLimit == nil)
        #expect(InProcessServer.standInPushes.connectTimeout == nil)
        #expect(InProcessServer.standInPushes.requestTimeout == nil)
        // Nor does the stand-in bound its in-process sender; one for another process keeps its guards.
        let inProcess = try #require(world.gateway.listenerTimeouts)
        let none = PushGatewayStandIn.noLimit
        #expect(inProcess.headerRead == none && inProcess.requestRead == none && inProcess.idle == none)
        let forAnother = try PushGatewayStandIn.listen(scheduler: SystemScheduler(), sender: .anotherProcess)
        defer { forAnother.shutdown() }
        #expect(forAnother.listenerTimeouts?.headerRead == .seconds(10))
        #expect(forAnother.listenerTimeouts?.idle == .seconds(75))
        let remote = ScenarioWorld(
            server: world.server,
            adapter: world.adapter,
            gateway: world.gateway,
            storageRoot: "/nonexistent",
            close: {}
        )
        #expect(remote.pushWaitLimit == .seconds(60))
    }
}
