import AdapterProtocol
import Foundation
import JSON
import ScenarioLanguage
import Synchronization
import Testing

@testable import ScenarioRunner

/// A finished scenario's world is closed before its outcome is returned, and taken apart on the
/// reclaimer's thread, not the runner's: the next scenario does not wait for it to be freed.
@Suite struct WorldReclaimerTests {
    @Test func aFinishedWorldIsClosedAtOnceAndFreedOnAnotherThread() async throws {
        let watch = WorldWatch()
        let environment = WatchedEnvironment(watch)
        let scenario = try Scenario.parse(
            Array(
                """
                name: one launch
                devices:
                  phone: {platform: ios, app_version: "2.3.0"}
                steps:
                  - launch: phone
                  - expect: {device: phone, screen: none}
                """.utf8
            ),
            file: "one-launch.yaml"
        )
        let runner = SuiteRunner(options: SuiteOptions())
        let outcome = runner.isolatedRun(of: scenario, in: environment)
        #expect(outcome.status == .passed)
        #expect(watch.closed.load(ordering: .relaxed) == 1)
        var waited = 0
        while watch.freedOn.withLock({ $0 }) == nil, waited < 1000 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        let freedOn = try #require(watch.freedOn.withLock { $0 }, "the world was not freed within 10 s")
        #expect(freedOn.byReclaimer)
    }
}

/// What happened to a watched world.
final class WorldWatch: Sendable {
    struct Freed: Sendable {
        /// Whether the world was freed on the reclaimer's thread.
        let byReclaimer: Bool
    }
    let closed = Atomic<Int>(0)
    let freedOn = Mutex<Freed?>(nil)
    init() {}
}

/// The in-process environment with each world's adapter watched for its close and its deinit.
final class WatchedEnvironment: ScenarioEnvironment {
    let inner = InProcessEnvironment(viaGateway: false)
    let watch: WorldWatch
    init(_ watch: WorldWatch) { self.watch = watch }

    func hello() throws -> JSON { try inner.hello() }

    func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
        var world = try inner.makeWorld(for: scenario)
        world.adapter = WatchedAdapter(inner: world.adapter, watch: watch)
        let close = world.close
        world.close = { [watch] in
            watch.closed.add(1, ordering: .relaxed)
            close()
        }
        return world
    }
}

final class WatchedAdapter: AdapterConnection {
    let inner: any AdapterConnection
    let watch: WorldWatch
    init(inner: any AdapterConnection, watch: WorldWatch) {
        self.inner = inner
        self.watch = watch
    }
    deinit {
        let byReclaimer = WorldReclaimer.isTakingApart
        watch.freedOn.withLock { $0 = WorldWatch.Freed(byReclaimer: byReclaimer) }
    }
    func send(_ command: JSON) throws(AdapterFailure) -> JSON { try inner.send(command) }
    func command(_ request: AdapterRequest) throws(AdapterFailure) -> JSON { try inner.command(request) }
    func close() { inner.close() }
}
