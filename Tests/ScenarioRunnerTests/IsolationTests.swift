import Clock
import Foundation
import JSON
import TestSupport
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// One verdict whatever the order: every scenario starts at the same time 0
/// (2026-12-02T09:32:00.000Z) on a fresh server, in every mode, so a scenario that checks an
/// absolute time passes after one that moved time by months, and shuffled orders agree.
@Suite struct IsolationTests {
    /// "a…" sorts first: three months pass in it before "b…" checks an absolute time.
    static let files = [
        "a-months-pass.yaml": """
        name: months pass
        devices:
          phone: {platform: ios}
        steps:
          - launch: phone
          - terminate: phone
          - after: 100d
          - launch: phone
          - expect: {device: phone, checks: 2}
        """,
        "b-absolute-time.yaml": """
        name: time 0 is 2026-12-02T09:32
        devices:
          phone: {platform: ios}
        steps:
          - launch: phone
          - expect: {device: phone, checks: 1, last_success: "2026-12-02T09:32:00.000Z"}
          - after: 6m
          - refresh: phone
          - expect: {device: phone, last_success: "2026-12-02T09:38:00.000Z"}
        """,
    ]

    /// The two orders the suite can run in, and what each gave.
    static func runBothOrders(in environment: any ScenarioEnvironment) throws -> [[String]: [String: Bool]] {
        let dir = try TestFiles.folder(files)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let suite = try ScenarioSuite.load(paths: [dir])
        #expect(suite.errors.isEmpty, "\(suite.errors)")
        var verdicts: [[String]: [String: Bool]] = [:]
        for seed: UInt64? in [nil] + (1...8).map(Optional.some) {
            var options = SuiteOptions()
            options.shuffleSeed = seed
            let result = SuiteRunner(options: options).run(suite, in: environment)
            let order = result.outcomes.map(\.scenario)
            for outcome in result.outcomes where outcome.status != .passed {
                Issue.record("\(order) seed \(seed.map(String.init) ?? "none"): \(outcome.failure)")
            }
            verdicts[order] = Dictionary(
                uniqueKeysWithValues: result.outcomes.map { ($0.scenario, $0.status == .passed) }
            )
        }
        return verdicts
    }

    static func expectBothOrdersPass(
        _ verdicts: [[String]: [String: Bool]],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(
            Set(verdicts.keys) == [
                ["months pass", "time 0 is 2026-12-02T09:32"], ["time 0 is 2026-12-02T09:32", "months pass"],
            ],
            "both orders ran",
            sourceLocation: sourceLocation
        )
        #expect(
            verdicts.values.allSatisfy { $0.values.allSatisfy { $0 } },
            "\(verdicts)",
            sourceLocation: sourceLocation
        )
    }

    @Test func anAbsoluteTimePassesAfterMonthsInProcess() throws {
        Self.expectBothOrdersPass(try Self.runBothOrders(in: InProcessEnvironment()))
    }

    /// `--adapter` without `--server`: each scenario gets a fresh server of the runner's own and a
    /// fresh `lerix-mock adapter` process.
    @Test func anAbsoluteTimePassesAfterMonthsThroughTheSwiftAdapterOutOfProcess() throws {
        let environment = LoopbackEnvironment(
            adapterCommand: "'\(ServerProcess.binary.path)' adapter --quiet",
            adapterOptions: .onALoadedMachine
        )
        #expect(environment.worldsAreIndependent)
        Self.expectBothOrdersPass(try Self.runBothOrders(in: environment))
    }

    /// `--server URL`: one running server, reset to 31 minutes before time 0 before each scenario
    /// (`POST /admin/reset {"now": …}`), whatever time the scenario before left it at.
    @Test func anAbsoluteTimePassesAfterMonthsAgainstARunningServer() throws {
        let server = try ServerProcess.start(["serve", "--clock", "manual", "--port", "0"])
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)"
        let inProcessAdapter = try RemoteEnvironment(serverURL: url) { try InProcessAdapter.make() }
        #expect(!inProcessAdapter.worldsAreIndependent)
        Self.expectBothOrdersPass(try Self.runBothOrders(in: inProcessAdapter))
        let spawned = try RemoteEnvironment(
            serverURL: url,
            adapterCommand: "'\(ServerProcess.binary.path)' adapter --quiet",
            adapterOptions: .onALoadedMachine
        )
        Self.expectBothOrdersPass(try Self.runBothOrders(in: spawned))
    }

    /// A server that cannot go back to time 0 (an older lerix-mock ignores the reset's `now`)
    /// is an error that says what is needed, not a verdict on the SDK.
    @Test func aServerThatKeepsItsTimeOnResetIsAnErrorThatSaysWhatIsNeeded() throws {
        let environment = FakeEnvironment()
        environment.makeServer = {
            let older = FakeServer()
            older.ignoresResetTime = true
            older.now = Instant(rfc3339: "2027-03-11T10:00:00.000Z")!
            return older
        }
        let dir = try TestFiles.folder(["b.yaml": Self.files["b-absolute-time.yaml"]!])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let suite = try ScenarioSuite.load(paths: [dir])
        let result = SuiteRunner(options: SuiteOptions()).run(suite, in: environment)
        #expect(result.errors == 1)
        #expect(result.outcomes.first?.failure.contains("reset") == true, "\(result.outcomes.map(\.failure))")
    }

    @Test func aShuffleIsAPermutationRepeatableFromItsSeed() throws {
        let suite = try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder])
        let names = suite.scenarios.map(\.name)
        let once = SuiteRunner.shuffled(suite.scenarios, seed: 42).map(\.name)
        #expect(once == SuiteRunner.shuffled(suite.scenarios, seed: 42).map(\.name))
        #expect(once.sorted() == names.sorted())
        #expect(once != names)
        #expect(once != SuiteRunner.shuffled(suite.scenarios, seed: 43).map(\.name))
    }

    /// The bundled suite in process in three shuffled orders: the same verdict for every scenario.
    @Test func shuffledOrdersOfTheBundledSuiteGiveTheSameVerdicts() throws {
        var suite = try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder])
        suite.scenarios = suite.scenarios.filter { !$0.tags.contains("slow") }
        var seen: [[String: ScenarioOutcome.Status]] = []
        var orders: Set<[String]> = []
        for seed: UInt64 in [3, 11, 2026] {
            var options = SuiteOptions()
            options.shuffleSeed = seed
            let result = SuiteRunner(options: options).run(suite, in: InProcessEnvironment())
            orders.insert(result.outcomes.map(\.scenario))
            seen.append(Dictionary(uniqueKeysWithValues: result.outcomes.map { ($0.scenario, $0.status) }))
            #expect(result.succeeded, "seed \(seed): \(BundledSuiteTests.report(result))")
        }
        #expect(orders.count == 3)
        #expect(seen.dropFirst().allSatisfy { $0 == seen[0] })
    }
}
