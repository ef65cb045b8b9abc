import Foundation
import JSON
import TestSupport
import Testing
@testable import ScenarioRunner

/// `--server URL --adapter CMD`: the real `serve --clock manual` binary over HTTP and the
/// `lerix-mock adapter` binary over stdin/stdout, pushes found through the admin API.
@Suite struct RemoteModeTests {
    @Test func bundledScenariosPassAgainstARunningServerAndASpawnedAdapter() throws {
        let server = try ServerProcess.start(["serve", "--clock", "manual", "--port", "0", "--start-time", "2026-12-02T09:00:00.000Z"])
        defer { server.stop() }
        let environment = try RemoteEnvironment(serverURL: "http://127.0.0.1:\(server.port)",
                                                adapterCommand: "'\(ServerProcess.binary.path)' adapter")
        var suite = try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder])
        let picked = ["push-throttle-combines-changes.yaml", "app-start-applies-saved-answer.yaml",
                      "offline-required-keeps-blocking.yaml", "push-best-effort.yaml"]
        suite.scenarios = suite.scenarios.filter { s in picked.contains { s.file.hasSuffix($0) } }
        let result = SuiteRunner(options: SuiteOptions(verbose: true)).run(suite, in: environment)
        #expect(result.outcomes.count == 4)
        #expect(result.succeeded, "\(BundledSuiteTests.report(result))")
        #expect(result.adapterName.hasPrefix("lerix-swift-sdk"))
        // The throttled push was found in the server's list at its checkpoint and delivered then.
        let throttle = result.outcomes.first { $0.file.hasSuffix("push-throttle-combines-changes.yaml") }
        #expect(throttle?.log.contains { $0.hasPrefix("+00h01m00s") && $0.contains("push") && $0.contains("reaches phone") } == true,
                "\(throttle?.log ?? [])")
    }

    @Test func aServerOnTheSystemClockIsRefusedWithAHint() throws {
        let server = try ServerProcess.start(["serve", "--port", "0"])
        defer { server.stop() }
        #expect {
            _ = try RemoteEnvironment(serverURL: "http://127.0.0.1:\(server.port)", adapterCommand: "true")
        } throws: { error in
            "\(error)".contains("--clock manual")
        }
    }

    @Test func anAdapterThatDiesIsReportedNotHungOn() throws {
        let adapter = try SubprocessAdapter(command: "read line; echo 'not json'")
        #expect(throws: AdapterFailure.self) { try adapter.send(.object([("cmd", "hello")])) }
        #expect(throws: AdapterFailure.self) { try adapter.send(.object([("cmd", "hello")])) }
        adapter.close()
    }
}
