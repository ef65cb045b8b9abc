import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LerixSDK
import Testing

// README.md "Using the Swift SDK", as an SDK engineer would write it from the README alone:
// only Foundation, LerixSDK and Testing, a real `lerix-mock serve`, the SDK's default
// URLSession transport and clock, and no sleeps. DocExamplesTests checks the README's blocks
// are these lines.

/// `lerix-mock serve` on a free port, for one test.
final class MockLerix {
    let process = Process()
    let url: URL

    init() throws {
        // $LERIX_MOCK, or the lerix-mock built beside the test binary (swift build puts it there).
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let binary = ProcessInfo.processInfo.environment["LERIX_MOCK"] ?? beside.appendingPathComponent("lerix-mock").path
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--quiet"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Its first line says where it listens: "listening on http://127.0.0.1:PORT".
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([10]) {
            line += byte
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let start = text.range(of: "http://"), let url = URL(string: String(text[start.lowerBound...])) else {
            process.terminate()
            throw URLError(.cannotConnectToHost)
        }
        self.url = url
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    /// An admin call, like the README's curl lines; answers the JSON body.
    @discardableResult
    func admin(_ method: String, _ path: String, _ body: String? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: url.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}

@Suite(.serialized) struct ReadmeExampleTests {
    @Test func aRequiredUpdateBlocksTheAppAndLiftingItReachesIt() async throws {
        let server = try MockLerix()
        let lerix = Lerix(
            configuration: LerixConfiguration(baseURL: server.url, project: "demo", platform: .ios, appVersion: "2.3.0"),
            storage: InMemoryStorage())
        let rule = try await server.admin("POST", "/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.4.0"}"#)

        var state = await lerix.start()          // returns once the launch check is answered
        #expect(state.screen == .requiredUpdate)
        #expect(state.requiredUpdate?.below == "2.4.0")

        try await server.admin("DELETE", "/admin/projects/demo/rules/\(rule["id"] as? String ?? "")")
        state = await lerix.didReceiveSilentPush()   // what the server's silent push makes the app do
        #expect(state.screen == .none)

        try await server.admin("POST", "/admin/projects/demo/faults", #"{"kind": "status", "status": 503}"#)
        state = await lerix.refresh()
        #expect(state.lastCheckFailure?.status == 503)
        #expect(state.screen == .none, "a failed check changes nothing")

        let journal = try await server.admin("GET", "/admin/requests?project=demo")
        #expect((journal["requests"] as? [Any])?.count == 3)
    }

    /// Issue 17: what every iOS launch does, `start()` then `enterForeground()` back to back,
    /// makes one check (the foreground joins the launch's), counted in the server's journal.
    @Test func startThenForegroundMakesOneCheckInTheServersJournal() async throws {
        let server = try MockLerix()
        let lerix = Lerix(
            configuration: LerixConfiguration(baseURL: server.url, project: "demo", platform: .ios, appVersion: "2.3.0"),
            storage: InMemoryStorage())
        withoutWaiting { lerix.start() }
        let state = await lerix.enterForeground()
        #expect(state.lastSuccess != nil)
        let journal = try await server.admin("GET", "/admin/requests?project=demo")
        #expect((journal["requests"] as? [Any])?.count == 1)
        #expect(lerix.statistics.checks == 1)
    }
}
