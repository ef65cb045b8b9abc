import AdminClient
import Foundation
import JSON
import TestSupport
import Testing

@testable import ScenarioRunner

/// `--server URL --adapter CMD`: the real `serve --clock manual` binary over HTTP and the
/// `lerix-mock adapter` binary over stdin/stdout; pushes go from that server to the runner's own
/// push-gateway stand-in (`PUT /admin/push-gateways`) and from there to the devices.
@Suite struct RemoteModeTests {
    /// The whole bundled suite, as in process: every scenario runs (none skipped, `gateway_reject`
    /// included) and passes.
    @Test func everyBundledScenarioPassesAgainstARunningServerAndASpawnedAdapter() throws {
        let server = try ServerProcess.start([
            "serve", "--clock", "manual", "--port", "0", "--start-time", "2026-12-02T09:00:00.000Z",
        ])
        defer { server.stop() }
        let suite = try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder])
        let result: SuiteResult
        do {
            let environment = try RemoteEnvironment(
                serverURL: "http://127.0.0.1:\(server.port)",
                adapterCommand: "'\(ServerProcess.binary.path)' adapter --quiet",
                adapterOptions: .onALoadedMachine
            )
            result = SuiteRunner(options: SuiteOptions(verbose: true)).run(suite, in: environment)
        }
        // The run is over: the server's pushes go back where they went before it.
        #expect(
            try HTTPServerConnection(url: "http://127.0.0.1:\(server.port)").admin(Admin.pushGateways)
                == .object([("apns", .null), ("fcm", .null)])
        )
        BundledSuiteTests.expectEveryScenarioRanAndPassed(result, of: suite)
        #expect(result.adapterName.hasPrefix("lerix-swift-sdk"))
        // The throttled push left the server at its timer (the server's next_deadline) and reached the device then.
        let throttle = result.outcomes.first { $0.file.hasSuffix("push-throttle-combines-changes.yaml") }
        #expect(
            throttle?.log.contains { $0.hasPrefix("+00h01m00s") && $0.contains("push") && $0.contains("reaches phone") }
                == true,
            "\(throttle?.log ?? [])"
        )
        // The gateway refused the uninstalled app's token, as in process.
        let gone = result.outcomes.first { $0.file.hasSuffix("push-token-gone.yaml") }
        #expect(
            gone?.status == .passed && gone?.log.contains { $0.contains("reaches gone") } == false,
            "\(gone?.log ?? [])"
        )
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
