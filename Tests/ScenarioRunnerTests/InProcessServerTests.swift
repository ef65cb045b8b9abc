import Clock
import JSON
import MockServer
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// An adapter whose devices never check: enough to drive the real MockServer's admin API.
final class SilentAdapter: AdapterConnection {
    var pushes: [String] = []
    func send(_ command: JSON) throws(AdapterFailure) -> JSON {
        if command["cmd"] == "push", let d = command["device"]?.stringValue { pushes.append(d) }
        if command["cmd"] == "next_deadline" { return .object([("ok", true), ("next_deadline", nil)]) }
        if command["cmd"] == "hello" { return .object([("ok", true), ("name", "silent"), ("capabilities", ["push"])]) }
        return .object([("ok", true)])
    }
    func close() {}
}

final class SilentEnvironment: ScenarioEnvironment {
    var adapter = SilentAdapter()
    var server: InProcessServer?
    func hello() throws -> JSON { try adapter.send(.object([("cmd", "hello")])) }
    func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
        let gateway = PushGatewayStandIn.inMemory(scheduler: SystemScheduler())
        let server = try InProcessServer(
            start: Instant(rfc3339: "2026-12-02T09:00:00.000Z")!,
            pushes: .direct(gateway.gateway)
        )
        self.server = server
        adapter = SilentAdapter()
        return ScenarioWorld(
            server: server.connection,
            adapter: adapter,
            gateway: gateway,
            storageRoot: "/nonexistent",
            close: {}
        )
    }
}

@Suite struct InProcessServerTests {
    @Test func theRunnerDrivesTheRealMockServerAndRoutesItsPushes() throws {
        let scenario = try Scenario.parse(
            Array(
                """
                name: admin api
                rules:
                  - {name: old, type: optional_update, below: "9.0.0"}
                devices:
                  phone: {platform: ios, app_version: "2.3.0", push_token: 5f2b8e4c8d0a6d4e2c7f1b3a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d}
                steps:
                  - launch: phone
                  - push_token: {token: 5f2b8e4c8d0a6d4e2c7f1b3a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d, platform: ios}
                  - create_rule: {name: block, type: required_update, below: "2.4.0"}
                  - expect_pushes: {count: 1, sent_at: [+0s], tokens: 1, platforms: {ios: 1}}
                  - after: 10s
                  - update_rule: {name: block, below: "2.5.0"}
                  - expect_pushes: {count: 1}
                  - after: 1m
                  - expect_pushes: {count: 2, sent_at: [+0s, +60s]}
                  - create_rule: {name: window, type: maintenance, starts_at: +5m, ends_at: +2h}
                  - delete_rule: block
                  - lift_all
                  - fault: {kind: status, status: 503, count: 1}
                  - clear_faults
                  - expect_ingest: {analytics: 0}
                  - expect_server: {checks: 0}
                """.utf8
            ),
            file: "admin.yaml"
        )
        let env = SilentEnvironment()
        let result = SuiteRunner(options: SuiteOptions(verbose: true)).run(
            ScenarioSuite(scenarios: [scenario]),
            in: env
        )
        let outcome = try #require(result.outcomes.first)
        #expect(outcome.status == .passed, "\(outcome.failure)\n\(outcome.log.joined(separator: "\n"))")
        // The throttled push left at +60s; the runner stopped there and delivered it.
        #expect(outcome.log.contains { $0.hasPrefix("+00h01m00s") && $0.contains("reaches phone") }, "\(outcome.log)")
        #expect(env.adapter.pushes.count >= 2)
    }
}

/// One start instant: the runner's in-process server starts where LerixMock does, fixed.
@Suite struct VirtualStartTests {
    @Test func theInProcessServerStartsAtTheMocksOneVirtualStart() {
        #expect(Scenario.inProcessStart == ServerClock.virtualStart)
        #expect(Scenario.inProcessStart.rfc3339 == "2026-12-02T09:00:00.000Z")
    }
}
