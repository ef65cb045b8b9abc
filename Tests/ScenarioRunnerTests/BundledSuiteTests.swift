import TestSupport
import Testing
@testable import ScenarioRunner

/// Runs the project's own Scenarios/ suite in process (MockServer + Swift SDK host), as
/// `make test` does, so a change that breaks a spec row fails here with the scenario's report.
@Suite struct BundledSuiteTests {
    static var scenariosFolder: String { TestFiles.packageRoot + "/Scenarios" }

    static func run(filter: (Scenario) -> Bool, seed: UInt64 = 1, verbose: Bool = false, viaGateway: Bool = true) throws -> SuiteResult {
        var suite = try ScenarioSuite.load(paths: [scenariosFolder])
        suite.scenarios = suite.scenarios.filter(filter)
        return SuiteRunner(options: SuiteOptions(seed: seed, verbose: verbose)).run(suite, in: InProcessEnvironment(viaGateway: viaGateway))
    }

    static func report(_ result: SuiteResult) -> String {
        result.outcomes.filter { $0.status != .passed }.map { ConsoleReport.line($0, verbose: false) }.joined(separator: "\n")
    }

    @Test func everyBundledScenarioPasses() throws {
        let result = try Self.run { !$0.tags.contains("slow") }
        #expect(result.outcomes.count >= 25)
        #expect(result.succeeded && result.skipped == 0, "\(Self.report(result))")
    }

    /// Pushes handed straight to devices here: this one is about scale, and 2,000 h2c
    /// deliveries on a loaded CI machine add nothing the other scenarios do not pin.
    @Test func theThousandDeviceFleetPasses() throws {
        let result = try Self.run(filter: { $0.tags.contains("slow") }, viaGateway: false)
        #expect(result.outcomes.count >= 1)
        #expect(result.succeeded && result.skipped == 0, "\(Self.report(result))")
    }

    @Test func theCatalogueIsFullyCoveredAndEveryFileParses() throws {
        let suite = try ScenarioSuite.load(paths: [Self.scenariosFolder])
        #expect(suite.errors.isEmpty, "\(suite.errors)")
        let catalogue = try #require(suite.catalogue)
        #expect(catalogue.rows.count >= 30)
        #expect(CoverageReport.uncovered(catalogue: catalogue, scenarios: suite.scenarios) == [])
    }

    @Test func pushScenariosPassWithPushesHandedStraightToDevices() throws {
        let result = try Self.run(filter: { $0.tags.contains("push") && !$0.tags.contains("slow") }, viaGateway: false)
        #expect(result.outcomes.count >= 5)
        #expect(result.succeeded, "\(Self.report(result))")
    }

    @Test func aRunIsTheSameEveryTime() throws {
        let pick: (Scenario) -> Bool = { $0.file.hasSuffix("mixed-platform-push-loop.yaml") || $0.file.hasSuffix("push-throttle-combines-changes.yaml") }
        let a = try Self.run(filter: pick, verbose: true)
        let b = try Self.run(filter: pick, verbose: true)
        #expect(a.outcomes.count == 2)
        #expect(a.outcomes.map(\.log) == b.outcomes.map(\.log))
        #expect(a.outcomes.allSatisfy { !$0.log.isEmpty })
    }
}
