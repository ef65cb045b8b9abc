import TestSupport
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// Runs the project's own Scenarios/ suite in process (MockServer + Swift SDK host), as
/// `make test` does, so a change that breaks a spec row fails here with the scenario's report.
@Suite struct BundledSuiteTests {
    static var scenariosFolder: String { TestFiles.packageRoot + "/Scenarios" }

    static func run(
        filter: (Scenario) -> Bool,
        seed: UInt64 = 1,
        verbose: Bool = false,
        viaGateway: Bool = true
    ) throws -> SuiteResult {
        var suite = try ScenarioSuite.load(paths: [scenariosFolder])
        suite.scenarios = suite.scenarios.filter(filter)
        return SuiteRunner(options: SuiteOptions(seed: seed, verbose: verbose)).run(
            suite,
            in: InProcessEnvironment(viaGateway: viaGateway)
        )
    }

    static func report(_ result: SuiteResult) -> String {
        result.outcomes.filter { $0.status != .passed }.map { ConsoleReport.line($0, verbose: false) }.joined(
            separator: "\n"
        )
    }

    /// Every scenario of the suite ran and passed: none skipped, none missing. A run that skips
    /// one, or runs none, tested less than it says.
    static func expectEveryScenarioRanAndPassed(
        _ result: SuiteResult,
        of suite: ScenarioSuite,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(suite.scenarios.count >= 30, sourceLocation: sourceLocation)
        #expect(suite.brokenFiles.isEmpty, "\(suite.errors)", sourceLocation: sourceLocation)
        #expect(
            result.outcomes.count == suite.scenarios.count && result.skipped == 0
                && result.passed == suite.scenarios.count,
            "\(result.summary)\n\(Self.report(result))",
            sourceLocation: sourceLocation
        )
    }

    /// In process over h2c to the runner's gateway; the fleet's 2,000 pushes go straight into the
    /// same gateway (no sockets), as `--direct-push` does: scale is its point, not the h2c path.
    @Test func everyBundledScenarioPassesInProcess() throws {
        let result = try Self.run { !$0.tags.contains("slow") }
        let fleet = try Self.run(filter: { $0.tags.contains("slow") }, viaGateway: false)
        #expect(fleet.outcomes.count >= 1)
        let suite = try ScenarioSuite.load(paths: [Self.scenariosFolder])
        Self.expectEveryScenarioRanAndPassed(
            SuiteResult(outcomes: result.outcomes + fleet.outcomes, adapterName: result.adapterName),
            of: suite
        )
    }

    @Test func theCatalogueIsFullyCoveredAndEveryFileParses() throws {
        let suite = try ScenarioSuite.load(paths: [Self.scenariosFolder])
        #expect(suite.errors.isEmpty, "\(suite.errors)")
        let catalogue = suite.catalogue
        #expect(catalogue.rows.count >= 30)
        #expect(CoverageReport.uncovered(catalogue: catalogue, scenarios: suite.scenarios) == [])
    }

    @Test func pushScenariosPassWithPushesHandedStraightToDevices() throws {
        let result = try Self.run(filter: { $0.tags.contains("push") && !$0.tags.contains("slow") }, viaGateway: false)
        #expect(result.outcomes.count >= 5)
        #expect(result.succeeded, "\(Self.report(result))")
    }

    @Test func aRunIsTheSameEveryTime() throws {
        let pick: (Scenario) -> Bool = {
            $0.file.hasSuffix("mixed-platform-push-loop.yaml")
                || $0.file.hasSuffix("push-throttle-combines-changes.yaml")
        }
        let a = try Self.run(filter: pick, verbose: true)
        let b = try Self.run(filter: pick, verbose: true)
        #expect(a.outcomes.count == 2)
        #expect(a.outcomes.map(\.log) == b.outcomes.map(\.log))
        #expect(a.outcomes.allSatisfy { !$0.log.isEmpty })
    }
}
