import Dispatch
import HTTP
import JSON
import Synchronization
import Testing

@testable import MockServer

/// A 1 MiB admin body of many keys was parsed on the loop that answers checks, holding a
/// concurrent check for 0.5 s (issue 42 item 11): large admin bodies are now parsed and answered
/// on a queue of their own, small ones stay in place.
@Suite struct LargeAdminBodyTests {
    /// A valid snapshot of about `bytes` (a long topic).
    static func largeSnapshot(bytes: Int) -> [UInt8] {
        Array("{\"projects\": [{\"key\": \"demo\", \"apns_topic\": \"\(String(repeating: "a", count: bytes))\"}]}".utf8)
    }

    @Test func aLargeAdminBodyIsAnsweredOffTheCallersThreadAndAChecksIsNotHeld() throws {
        let h = try Harness()
        let request = HTTPRequest(
            method: "PUT",
            target: "/admin/state",
            headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: Self.largeSnapshot(bytes: 1 << 20)
        )
        let answered = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        h.server.respond(to: request) { reply in
            if case .response(let response) = reply { answered.withLock { $0 = response.status } }
            done.signal()
        }
        #expect(answered.withLock { $0 } == nil, "respond returned before the body was parsed")
        // A check on the caller's thread (a server loop's) is answered at once meanwhile.
        #expect(h.check("platform=ios&version=1.0").status == 200)
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(answered.withLock { $0 } == 200)
    }

    @Test func aSmallAdminBodyIsStillAnsweredInPlace() throws {
        let h = try Harness()
        let answered = Mutex<Int?>(nil)
        h.server.respond(
            to: HTTPRequest(
                method: "POST",
                target: "/admin/clock",
                headers: HTTPHeaders([("Content-Type", "application/json")]),
                body: Array(#"{"advance_seconds": 1}"#.utf8)
            )
        ) { reply in
            if case .response(let response) = reply { answered.withLock { $0 = response.status } }
        }
        #expect(answered.withLock { $0 } == 200)
    }
}
