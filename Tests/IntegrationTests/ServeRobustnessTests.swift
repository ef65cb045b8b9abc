import Dispatch
import Foundation
import HTTP
import JSON
import TestSupport
import Testing

/// Bad input and load against the real binary: nothing crashes, stalls or loses state.
@Suite struct ServeRobustnessTests {
    static let check = "/v1/projects/demo/release-control?platform=android&version=1.0.0"

    @Test func twoHundredConcurrentConnectionsAreAllAnswered() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        defer { server.stop() }
        let port = server.port
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 200) { _ in
            do {
                let client = try TestHTTPClient(port: port)
                for _ in 0..<3 {
                    let response = try client.send(HTTPRequest(method: "GET", target: Self.check))
                    if response.status != 200 { failures.increment() }
                }
            } catch {
                failures.increment()
            }
        }
        #expect(failures.value == 0)
    }

    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n", 400),
        ("GET / HTTP/9.9\r\nHost: x\r\n\r\n", 505),
        ("POST /admin/projects/demo/rules HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400),
        ("POST /admin/projects/demo/rules HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", 413),
        ("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        ("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 17_000) + "\r\n\r\n", 431),
        ("POST /admin/projects/demo/rules HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    ])
    func malformedRequestsGetAClearErrorAndTheServerKeepsServing(raw: String, status: Int) throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        defer { server.stop() }
        let bad = try TestConnection(port: server.port)
        try bad.write(raw)
        let response = try bad.readResponse()
        #expect(response.status == status)
        let good = try TestHTTPClient(port: server.port)
        #expect(try good.send(HTTPRequest(method: "GET", target: "/healthz")).status == 200)
    }

    @Test func malformedJSONAndWrongTypesAre400WithPointersAndLoseNothing() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        defer { server.stop() }
        let client = try TestHTTPClient(port: server.port)
        for body in ["{", "[]", #"{"type": "maintenance", "starts_at": 5}"#, "\u{FF}"] {
            let response = try client.send(
                HTTPRequest(method: "POST", target: "/admin/projects/demo/rules", body: Array(body.utf8))
            )
            #expect(response.status == 400, "\(body)")
            #expect(response.headers["Content-Type"]?.hasPrefix("application/problem+json") == true)
        }
        let rules = try JSON.parse(
            try client.send(HTTPRequest(method: "GET", target: "/admin/projects/demo/rules")).body
        )
        #expect(rules["rules"] == .array([]))
    }

    @Test func aStalledClientDoesNotBlockOthers() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        defer { server.stop() }
        let stalled = try TestConnection(port: server.port)
        try stalled.write("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        for _ in 0..<20 {
            let other = try TestHTTPClient(port: server.port)
            #expect(try other.send(HTTPRequest(method: "GET", target: Self.check)).status == 200)
        }
    }

    @Test func aThousandConnectionsOfRandomBytesLeaveTheServerAnswering() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        defer { server.stop() }
        let port = server.port
        DispatchQueue.concurrentPerform(iterations: 1000) { i in
            guard let client = try? TestConnection(port: port, timeoutSeconds: 2) else { return }
            var generator = SeededRandom(seed: UInt64(i))
            let length = Int(generator.next() % 4096) + 1
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            try? client.write(bytes)
        }
        let client = try TestHTTPClient(port: port)
        #expect(try client.send(HTTPRequest(method: "GET", target: Self.check)).status == 200)
        #expect(server.process.isRunning)
    }

    @Test func sigtermStopsGracefullyWithStatusZero() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        let client = try TestHTTPClient(port: server.port)
        #expect(try client.send(HTTPRequest(method: "GET", target: "/healthz")).status == 200)
        #expect(server.stop() == 0)
    }
}

/// A thread-safe count for concurrentPerform bodies.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
