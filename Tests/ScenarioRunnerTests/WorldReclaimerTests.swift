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
        let environment = watchedEnvironment(watch)
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

/// The in-process environment with each world's close watched, and its freeing: the close
/// closure holds a sentinel that goes when the world does.
func watchedEnvironment(_ watch: WorldWatch) -> AlteredEnvironment {
    AlteredEnvironment { world in
        let close = world.close
        let sentinel = FreedSentinel(watch)
        world.close = {
            watch.closed.add(1, ordering: .relaxed)
            close()
            withExtendedLifetime(sentinel) {}
        }
    }
}

/// Says on which thread it was freed.
final class FreedSentinel: Sendable {
    let watch: WorldWatch
    init(_ watch: WorldWatch) { self.watch = watch }
    deinit {
        let byReclaimer = WorldReclaimer.isTakingApart
        watch.freedOn.withLock { $0 = WorldWatch.Freed(byReclaimer: byReclaimer) }
    }
}
