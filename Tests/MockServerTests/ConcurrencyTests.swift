import Clock
import Dispatch
import HTTP
import JSON
import Synchronization
import Testing

@testable import MockServer

@Suite struct ConcurrencyTests {
    @Test func checksTokenWritesAndRuleChangesFromManyThreadsAllAnswer() throws {
        let h = try Harness(journalCapacity: 10_000)
        let statuses = Mutex<[Int: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for i in 0..<200 {
                let response: Response
                switch i % 10 {
                case 0 where worker == 0:
                    response = h.post(
                        "/admin/projects/demo/rules",
                        #"{"type": "required_update", "below": "\#(i / 10 + 1).0"}"#
                    )
                case 1:
                    response = h.put("/v1/projects/demo/push-tokens/w\(worker)-\(i)", #"{"platform": "ios"}"#)
                default:
                    response = h.check("platform=ios&version=\(worker).\(i % 3)")
                }
                statuses.withLock { $0[response.status, default: 0] += 1 }
            }
        }
        let counts = statuses.withLock { $0 }
        #expect(Set(counts.keys).isSubset(of: [200, 201, 204]), "\(counts)")
        #expect(counts[201] == 20)
        #expect(counts[204] == 8 * 20)
        #expect(h.get("/admin/requests?limit=10000")["requests"]?.arrayValue?.count == counts[200])
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue?.count == 160)
        #expect(h.get("/admin/projects/demo/changes")["changes"]?.arrayValue?.count == 20)
        // After the dust settles the cache serves what a fresh evaluation gives.
        let cached = h.check("platform=ios&version=0.0")
        #expect(cached["required_update"]?["below"] == "20.0")
    }

    @Test func theAnswerCacheStaysBounded() throws {
        let clock = ManualScheduler(now: Harness.start)
        let server = try MockServer(options: MockServerOptions(clock: .manual(clock), cacheCapacity: 16))
        for i in 0..<100 {
            server.respond(
                to: HTTPRequest(method: "GET", target: "/v1/projects/demo/release-control?platform=ios&version=1.\(i)")
            ) { _ in }
        }
        #expect(server.state.withLock { $0.projects["demo"]?.cache.count ?? 0 } <= 16)
    }
}
