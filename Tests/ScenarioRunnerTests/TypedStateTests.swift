import Adapter
import AdapterProtocol
import AdminClient
import Clock
import JSON
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// In process the runner reads a device's state typed (no field formatted and parsed back); any
/// other adapter answers `state` in JSON. Both readings feed one matcher, so an expectation gets
/// the same verdict and the same words either way.
@Suite struct TypedStateTests {
    /// The in-process world's adapter spoken to in JSON lines only, as a spawned adapter is: its
    /// commands and its `state` go through ``AdapterConnection``'s defaults.
    final class LinesOnly: AdapterConnection {
        let inner: any AdapterConnection
        init(_ inner: any AdapterConnection) { self.inner = inner }
        func send(_ command: JSON) throws(AdapterFailure) -> JSON { try inner.send(command) }
        func close() { inner.close() }
    }

    final class LinesOnlyEnvironment: ScenarioEnvironment {
        let inner = InProcessEnvironment(viaGateway: false)
        var worldsAreIndependent: Bool { true }
        func hello() throws -> JSON { try inner.hello() }
        func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
            var world = try inner.makeWorld(for: scenario)
            world.adapter = LinesOnly(world.adapter)
            return world
        }
    }

    /// The scenario's outcome read typed and read from JSON lines.
    func bothWays(_ text: String) throws -> (typed: ScenarioOutcome, lines: ScenarioOutcome) {
        let scenario = try Scenario.parse(Array(text.utf8), file: "typed.yaml")
        func run(_ environment: any ScenarioEnvironment) throws -> ScenarioOutcome {
            let result = SuiteRunner(options: SuiteOptions(verbose: true)).run(
                ScenarioSuite(scenarios: [scenario]),
                in: environment
            )
            return try #require(result.outcomes.first)
        }
        return (try run(InProcessEnvironment(viaGateway: false)), try run(LinesOnlyEnvironment()))
    }

    static let devices = """
        name: typed and JSON states agree
        rules:
          - {name: window, type: maintenance, starts_at: +90m, ends_at: +3h, message: Down for maintenance}
        devices:
          phone: {platform: ios, app_version: "2.3.0", push: true}
          fleet: {count: 3, platform: android, app_version: ["2.3.0", "2.4.1"]}
          mac: {platform: macos, app_version: "4.0.0", clock_offset: -2h}
        steps:
          - launch: [phone, fleet, mac]
          - expect: {device: all, checks: 1, not_modified: 0, failed_checks: 0, last_failure: null,
                     running: true, online: true, etag: present, screen: none}
          - expect: {device: [phone, mac], last_success: +0s, device_time: +0s, maintenance: 1}
          - expect: {device: phone, maintenance: [{rule: window, starts_at: +90m, ends_at: +3h}]}
          - create_rule: {name: block, type: required_update, below: "2.4.0"}
          - after: 5m
          - refresh: all
          - expect: {device: phone, screen: required_update, required_update: {rule: block, below: "2.4.0"}, checks: ">= +1"}
          - expect: {device: [fleet-2], screen: none, checks: ">= +1", required_update: absent}
          - fault: {kind: status, status: 503, count: 1}
          - refresh: phone
          - expect: {device: phone, failed_checks: "+1", last_failure: {kind: status, status: 503, at: +5m}}
          - offline: mac
          - track: {device: mac, module: feedback, count: 2}
          - expect: {device: mac, online: false, queued: {feedback: 2}, sent: {feedback: 0}}
        """

    static let steps = devices.split(separator: "\n").drop { $0 != "steps:" }.filter { $0.hasPrefix("  - ") }.count

    @Test func aPassingScenarioPassesReadEitherWay() throws {
        let (typed, lines) = try bothWays(Self.devices)
        #expect(typed.status == .passed, "\(typed.failure)")
        #expect(lines.status == .passed, "\(lines.failure)")
        #expect(typed.log == lines.log)
    }

    /// Each last step fails in its own way: a fleet's count of differing devices, a nested
    /// field, a list's length, a time on an offset clock, a relative count's note, a module count.
    @Test func aFailingExpectationSaysTheSameReadEitherWay() throws {
        let failing = [
            "{device: all, screen: required_update}",
            "{device: phone, required_update: {below: \"9.9.9\"}}",
            "{device: phone, maintenance: 2}",
            "{device: mac, last_success: +1m, device_time: +1m}",
            "{device: phone, checks: \"+5\"}",
            "{device: mac, queued: {feedback: 1}}",
            "{device: phone, last_failure: {kind: connection, at: +4m}}",
            "{device: fleet, etag: absent}",
        ]
        for last in failing {
            let (typed, lines) = try bothWays(Self.devices + "\n  - expect: \(last)\n")
            #expect(typed.status == .failed, "\(last): \(typed.failure)")
            #expect(typed.failedStep?.number == Self.steps + 1, "\(last): \(typed.failureSummary)")
            #expect(typed.failureSummary == lines.failureSummary, "\(last)")
            #expect(typed.failure == lines.failure, "\(last)")
            #expect(typed.log == lines.log, "\(last)")
        }
    }

    @Test func aFleetFailureCountsTheDevicesThatDiffer() throws {
        let (typed, _) = try bothWays(Self.devices + "\n  - expect: {device: all, screen: required_update}\n")
        #expect(typed.failureSummary.contains("2 of 5 devices differ"), "\(typed.failureSummary)")
        #expect(typed.failureSummary.contains("fleet-2: screen: expected \"required_update\", seen \"none\""))
    }

    /// Field by field, the typed state is what the `state` answer writes, for devices in every
    /// kind of state: never launched, blocked, in a window's lead, offline with a failure and items.
    @Test func everyFieldReadTypedIsTheStateAnswersField() throws {
        let start = Scenario.inProcessStart
        let gateway = PushGatewayStandIn.inMemory(scheduler: SystemScheduler())
        let server = try InProcessServer(start: start, pushes: .direct(gateway.gateway))
        let adapter = try InProcessAdapter.make(responder: server.server, clock: server.clock)
        let project = Admin.project("demo")
        for body: JSON in [
            .object([("type", "required_update"), ("below", "2.4.0")]),
            .object([
                ("type", "maintenance"), ("starts_at", .string(start.adding(seconds: 3600).rfc3339)),
                ("ends_at", .string(start.adding(seconds: 7200).rfc3339)),
            ]),
        ] {
            #expect((200..<300).contains(try server.connection.request(project.createRule(body)).status))
        }
        let names = ["idle", "blocked", "fine", "offline"]
        for (name, version) in zip(names, ["1.0.0", "2.3.0", "2.4.1", "2.4.1"]) {
            let config = DeviceConfig(
                baseURL: "http://lerix.test",
                project: "demo",
                platform: "android",
                appVersion: version,
                pushToken: "fcm-\(name)",
                clockOffsetSeconds: name == "offline" ? -90 : 0
            )
            _ = try adapter.command(.create(device: name, now: start, config: config))
        }
        for name in names.dropFirst() { _ = try adapter.command(.appEvent(.launch, device: name)) }
        let fault = JSON.object([("kind", "status"), ("status", 503), ("count", 1)])
        #expect((200..<300).contains(try server.connection.request(project.addFault(fault)).status))
        _ = try adapter.command(.appEvent(.refresh, device: "offline"))
        _ = try adapter.command(.network(device: "offline", online: false))
        _ = try adapter.command(.track(device: "offline", module: "analytics", count: 3))
        _ = try adapter.command(.track(device: "fine", module: "errors", count: 2))
        _ = try adapter.command(.advance(to: start.adding(seconds: 90)))

        for name in names {
            let answer = try adapter.command(.state(device: name))
            let typed = try adapter.deviceState(name)
            guard case .typed = typed else {
                Issue.record("the in-process adapter read \(name) from JSON")
                continue
            }
            #expect(Set(answer.objectValue?.keys ?? []) == Set(["id", "ok"] + StateShape.keys))
            for key in StateShape.keys {
                #expect(typed[key] == answer[key], "\(name).\(key)")
            }
            #expect(typed["id"] == nil)
            #expect(typed["nonsense"] == nil)
        }
        #expect(try adapter.deviceState("offline")["last_failure"]?["status"] == 503)
        #expect(try adapter.deviceState("offline")["queued"]?["analytics"] == 3)
        #expect(try adapter.deviceState("fine")["sent"]?["errors"] == 2)
        #expect(try adapter.deviceState("blocked")["screen"] == "required_update")
        #expect(try adapter.deviceState("idle")["last_success"] == .null)
    }

    @Test func aTypedStateOfAnUnknownDeviceIsRefusedAsTheCommandIs() throws {
        let gateway = PushGatewayStandIn.inMemory(scheduler: SystemScheduler())
        let server = try InProcessServer(start: Scenario.inProcessStart, pushes: .direct(gateway.gateway))
        let adapter = try InProcessAdapter.make(responder: server.server, clock: server.clock)
        let command = #expect(throws: AdapterFailure.self) { try adapter.command(.state(device: "nobody")) }
        let typed = #expect(throws: AdapterFailure.self) { try adapter.deviceState("nobody") }
        #expect(typed?.message == command?.message)
        #expect(typed?.message.hasPrefix("adapter refused `state`: unknown device nobody") == true)
    }
}
