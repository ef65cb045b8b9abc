import Foundation
import HTTP
import HTTP2
import HTTPServer
import TestSupport
import Testing

/// The app the HTTP/2 integration tests serve: a few routes that show the protocol,
/// echo bodies, hold answers until the test releases them, and reset streams.
final class H2TestResponder: Responder, @unchecked Sendable {
    private let condition = NSCondition()
    private var held: [String: @Sendable (HTTPReply) -> Void] = [:]

    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        switch request.path {
        case "/hello":
            reply(
                .response(
                    HTTPResponse(
                        status: 200,
                        body: Array("hello \(request.version.text) \(request.headers["Host"] ?? "-")".utf8)
                    )
                )
            )
        case "/echo":
            reply(
                .response(
                    HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
                )
            )
        case "/big":
            let body = Array(String(repeating: #"{"rule":"r1","below":"2.4.0"},"#, count: 200).utf8)
            reply(.response(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)))
        case "/huge":
            reply(
                .response(
                    HTTPResponse(
                        status: 200,
                        headers: ["Content-Type": "application/octet-stream"],
                        body: H2TestResponder.hugeBody
                    )
                )
            )
        case "/reset":
            reply(.close)
        default:
            if request.path.hasPrefix("/hold/") {
                condition.withLock {
                    held[request.path] = reply
                    condition.broadcast()
                }
            } else {
                reply(.response(HTTPResponse(status: 404)))
            }
        }
    }

    /// 1.5 MiB with a byte pattern that shows any misplaced frame: beyond every initial window.
    static let hugeBody: [UInt8] = {
        var bytes = [UInt8](repeating: 0, count: 3 << 19)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for i in 0..<buffer.count { buffer[i] = UInt8(truncatingIfNeeded: i % 251) }
        }
        return bytes
    }()

    /// Waits (10 s at most, a failure guard) until `count` requests are held.
    func waitUntilHeld(_ count: Int) -> Bool {
        condition.withLock {
            let deadline = Date(timeIntervalSinceNow: 10)
            while held.count < count {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }
    }

    /// Answers a held request from another thread, as a delayed app answer would.
    func release(_ path: String) {
        let reply = condition.withLock { held.removeValue(forKey: path) }
        DispatchQueue.global().async { reply?(.response(HTTPResponse(status: 200, body: Array("late \(path)".utf8)))) }
    }
}

/// A blocking h2c client over a real socket, driving an ``HTTP2ClientSession``.
final class H2SocketClient {
    let socket: TestConnection
    let session: HTTP2ClientSession
    var events: [HTTP2ClientSession.Event] = []

    init(port: Int) throws {
        socket = try TestConnection(port: port)
        session = try HTTP2ClientSession(configuration: .init(defaultAuthority: "127.0.0.1:\(port)"))
    }

    func send() throws {
        let out = session.takeOutput()
        if !out.isEmpty { try socket.write(out) }
    }

    /// Reads and feeds until `done` holds; throws on EOF or the socket's receive timeout.
    func run(until done: () -> Bool) throws {
        try send()
        while !done() {
            let chunk: [UInt8]?
            do {
                chunk = try socket.receiveSome()
            } catch {
                throw H2ClientFailure(description: "\(error) before the expected events")
            }
            guard let chunk else { throw H2ClientFailure(description: "connection ended before the expected events") }
            events += chunk.withUnsafeBytes { session.feed($0) }
            try send()
        }
    }

    var responses: [Int32: HTTPResponse] {
        var out: [Int32: HTTPResponse] = [:]
        for case .response(let id, let response) in events { out[id] = response }
        return out
    }
}

struct H2ClientFailure: Error, CustomStringConvertible {
    let description: String
}

@Suite(.serialized) struct HTTP2ServerTests {
    let responder = H2TestResponder()
    let server: HTTPServer
    let port: Int

    init() throws {
        server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: responder)
        port = try server.start()
    }

    var base: String { "http://127.0.0.1:\(port)" }

    @Test func curlWithPriorKnowledgeSpeaksH2c() async throws {
        let out = try curl(["--http2-prior-knowledge", "-w", "|%{http_version}|%{http_code}", "\(base)/hello"])
        #expect(out == "hello HTTP/2 127.0.0.1:\(port)|2|200")
        await server.stop()
    }

    @Test func curlUpgradesWithUpgradeH2cAndTheSameRequestIsAnswered() async throws {
        let out = try curl(["--http2", "-w", "|%{http_version}|%{http_code}", "\(base)/hello"])
        #expect(out == "hello HTTP/2 127.0.0.1:\(port)|2|200")
        await server.stop()
    }

    @Test func http1StillWorksOnTheSamePort() async throws {
        let out = try curl(["--http1.1", "-w", "|%{http_version}", "\(base)/hello"])
        #expect(out == "hello HTTP/1.1 127.0.0.1:\(port)|1.1")
        await server.stop()
    }

    @Test func anUpgradeWithMalformedSettingsIsAnsweredAsHTTP1() async throws {
        let raw = try TestConnection(port: port)
        try raw.write(
            "GET /hello HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAIAAAAC\r\n\r\n"
        )
        let response = try raw.readResponse()
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello HTTP/1.1 h")
        await server.stop()
    }

    @Test func gzipIsNegotiatedOnBothProtocols() async throws {
        let expected = String(repeating: #"{"rule":"r1","below":"2.4.0"},"#, count: 200)
        for flag in ["--http1.1", "--http2-prior-knowledge", "--http2"] {
            let headers = try curl([flag, "-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: gzip", "\(base)/big"])
                .lowercased()
            #expect(headers.contains("content-encoding: gzip"), "\(flag)")
            #expect(headers.contains("vary: accept-encoding"), "\(flag)")
            #expect(try curl([flag, "--compressed", "\(base)/big"]) == expected, "\(flag)")
            let identity = try curl([
                flag, "-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: gzip;q=0", "\(base)/big",
            ]).lowercased()
            #expect(!identity.contains("content-encoding"), "\(flag)")
        }
        await server.stop()
    }

    @Test func multiplexedStreamsAndAdminStylePostBodiesOverOneConnection() async throws {
        let client = try H2SocketClient(port: port)
        var expected: [Int32: [UInt8]] = [:]
        for i in 0..<20 {
            if i % 2 == 0 {
                let body = (0..<(i * 10_000 + 1)).map { UInt8(truncatingIfNeeded: $0 &+ i) }
                let id = try client.session.submit(
                    HTTPRequest(
                        method: "POST",
                        target: "/echo",
                        headers: ["Content-Type": "application/json"],
                        body: body
                    )
                )
                expected[id] = body
            } else {
                let id = try client.session.submit(HTTPRequest(method: "GET", target: "/hello"))
                expected[id] = Array("hello HTTP/2 127.0.0.1:\(port)".utf8)
            }
        }
        try client.run { client.responses.count == expected.count }
        for (id, body) in expected {
            #expect(client.responses[id]?.status == 200)
            #expect(client.responses[id]?.body == body, "stream \(id)")
        }
        await server.stop()
    }

    @Test func responsesLargerThanEveryFlowControlWindowArriveWhole() async throws {
        let client = try H2SocketClient(port: port)
        let big = try client.session.submit(HTTPRequest(method: "GET", target: "/huge"))
        let small = try client.session.submit(HTTPRequest(method: "GET", target: "/hello"))
        try client.run { client.responses.count == 2 }
        #expect(client.responses[big]?.body == H2TestResponder.hugeBody)
        #expect(client.responses[small]?.status == 200)
        await server.stop()
    }

    @Test func lateAnswersArriveOnTheirStreamsInAnyOrderAndResetsStayOnTheirStream() async throws {
        let client = try H2SocketClient(port: port)
        let ids = try (0..<3).map { try client.session.submit(HTTPRequest(method: "GET", target: "/hold/\($0)")) }
        let reset = try client.session.submit(HTTPRequest(method: "GET", target: "/reset"))
        try client.run { client.events.contains { if case .reset(reset, _) = $0 { true } else { false } } }
        #expect(responder.waitUntilHeld(3))
        for i in [2, 0, 1] { responder.release("/hold/\(i)") }
        try client.run { client.responses.count == 3 }
        for (i, id) in ids.enumerated() {
            #expect(client.responses[id].map { String(decoding: $0.body, as: UTF8.self) } == "late /hold/\(i)")
        }
        await server.stop()
    }

    @Test func garbageAfterThePrefaceGetsGoawayAndTheServerKeepsServing() async throws {
        let raw = try TestConnection(port: port)
        try raw.write(HTTP2Preface.bytes + [0, 0, 4, 0xFF, 0, 0, 0, 0, 0] + Array("junkjunkjunk".utf8))
        var received: [UInt8] = []
        while let chunk = try? raw.receiveSome() { received += chunk }
        #expect(containsGoaway(received, code: .protocolError))
        let out = try curl(["--http2-prior-knowledge", "\(base)/hello"])
        #expect(out == "hello HTTP/2 127.0.0.1:\(port)")
        await server.stop()
    }

    @Test func gracefulStopSendsGoawayAndFinishesTheOpenStream() async throws {
        let client = try H2SocketClient(port: port)
        let id = try client.session.submit(HTTPRequest(method: "GET", target: "/hold/stop"))
        try client.send()
        #expect(responder.waitUntilHeld(1))
        // Stop through Dispatch, not a Task: `client.run` blocks this thread, and on a loaded
        // 2-core run every cooperative thread may be blocked, so a Task might never start.
        let stopped = DispatchSemaphore(value: 0)
        server.stop(graceful: true) { stopped.signal() }
        try client.run { client.session.receivedGoaway }
        responder.release("/hold/stop")
        try client.run { client.responses[id] != nil }
        #expect(client.responses[id]?.status == 200)
        #expect(stopped.wait(timeout: .now() + 10) == .success)
    }
}
