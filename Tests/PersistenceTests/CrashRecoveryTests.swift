import Foundation
import HTTP
import JSON
import Synchronization
import TestSupport
import Testing

/// The real `lerix-mock serve --state` killed with SIGKILL while several clients write, again
/// and again on the same file: every write it acknowledged is there after each restart.
@Suite struct CrashRecoveryTests {
    /// What the server acknowledged (answered 2xx) across every run.
    private final class Acknowledged: Sendable {
        let tokens = Mutex<Set<String>>([])
        let rules = Mutex<Set<String>>([])
        let ingested = Mutex<Int>(0)
        let count = Atomic<Int>(0)
    }

    private static func json(_ response: HTTPResponse) -> JSON? { try? JSON.parse(response.body) }

    /// One client on its own connection writing until the server goes away.
    private static func writer(port: Int, id: String, into acknowledged: Acknowledged) {
        guard let client = try? TestHTTPClient(port: port, timeoutSeconds: 10) else { return }
        var n = 0
        while true {
            n += 1
            let request: HTTPRequest
            switch n % 3 {
            case 0:
                request = HTTPRequest(
                    method: "POST",
                    target: "/admin/projects/demo/rules",
                    body: Array(#"{"type": "optional_update", "below": "\#(n).0.0"}"#.utf8)
                )
            case 1:
                request = HTTPRequest(
                    method: "POST",
                    target: "/v1/projects/demo/ingest/analytics",
                    body: Array("[1, 2]".utf8)
                )
            default:
                request = HTTPRequest(
                    method: "PUT",
                    target: "/v1/projects/demo/push-tokens/\(id)-\(n)",
                    body: Array(#"{"platform": "android"}"#.utf8)
                )
            }
            guard let response = try? client.send(request), (200..<300).contains(response.status) else { return }
            switch n % 3 {
            case 0:
                guard let ruleId = json(response)?["id"]?.stringValue else { return }
                acknowledged.rules.withLock { _ = $0.insert(ruleId) }
            case 1:
                acknowledged.ingested.withLock { $0 += 2 }
            default:
                acknowledged.tokens.withLock { _ = $0.insert("\(id)-\(n)") }
            }
            acknowledged.count.add(1, ordering: .relaxed)
        }
    }

    /// Checks that everything acknowledged so far is in the restarted server.
    private static func expectEverything(_ acknowledged: Acknowledged, in server: ServerProcess, run: Int) throws {
        let client = try TestHTTPClient(port: server.port)
        let tokens =
            json(try client.send(HTTPRequest(method: "GET", target: "/admin/projects/demo/push-tokens")))?[
                "push_tokens"
            ]?
            .arrayValue?.compactMap { $0["token"]?.stringValue } ?? []
        let rules =
            json(try client.send(HTTPRequest(method: "GET", target: "/admin/projects/demo/rules")))?["rules"]?
            .arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        let ingested =
            json(try client.send(HTTPRequest(method: "GET", target: "/admin/projects/demo/ingest")))?["ingest"]?[
                "analytics"
            ]?
            .intValue ?? 0
        let missingTokens = acknowledged.tokens.withLock { $0 }.subtracting(tokens)
        let missingRules = acknowledged.rules.withLock { $0 }.subtracting(rules)
        let lostTokens = missingTokens.count
        let lostRules = missingRules.count
        #expect(
            lostTokens == 0,
            "after kill \(run): acknowledged tokens lost, e.g. \(missingTokens.sorted().prefix(5))"
        )
        #expect(lostRules == 0, "after kill \(run): acknowledged rules lost, e.g. \(missingRules.sorted().prefix(5))")
        #expect(ingested >= acknowledged.ingested.withLock { $0 }, "after kill \(run): ingest count went back")
    }

    @Test func everyAcknowledgedWriteSurvivesRepeatedSIGKILLs() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("crash.db")
        let acknowledged = Acknowledged()
        let kills = 4
        let writers = 4
        let writesPerRun = 120
        for run in 0..<kills {
            let server = try ServerProcess.start([
                "serve", "--state", path, "--port", "0", "--clock", "manual", "--quiet",
            ])
            try Self.expectEverything(acknowledged, in: server, run: run)
            let before = acknowledged.count.load(ordering: .relaxed)
            let group = DispatchGroup()
            for w in 0..<writers {
                group.enter()
                Thread {
                    Self.writer(port: server.port, id: "run\(run)-w\(w)", into: acknowledged)
                    group.leave()
                }.start()
            }
            // Kill mid-stream once enough writes were acknowledged (the guard bounds a stuck server).
            for _ in 0..<30_000 where acknowledged.count.load(ordering: .relaxed) - before < writesPerRun {
                usleep(1000)
            }
            server.kill()
            #expect(group.wait(timeout: .now() + 30) == .success, "writers did not notice the kill")
            #expect(
                acknowledged.count.load(ordering: .relaxed) - before >= writesPerRun,
                "run \(run) acknowledged too few writes"
            )
        }
        let last = try ServerProcess.start(["serve", "--state", path, "--port", "0", "--clock", "manual", "--quiet"])
        defer { last.stop() }
        try Self.expectEverything(acknowledged, in: last, run: kills)
        #expect(acknowledged.tokens.withLock { $0.count } >= kills * writesPerRun / 3 - kills * writers)
    }
}
