import HTTP
import HTTP2
import TestSupport
import Testing

@testable import HTTPServer

/// One set of request limits for HTTP/1.1 and HTTP/2: the same request breaks the same
/// limit with the same status and problem body, whichever protocol carries it.
@Suite struct SameLimitsTests {
    /// The answer to `request` over HTTP/1.1 and over h2c (prior knowledge).
    static func answersOverBothProtocols(
        port: Int,
        _ request: HTTPRequest
    ) throws -> (h1: HTTPResponse, h2: HTTPResponse) {
        let h1 = try TestHTTPClient(port: port).send(request)
        let client = try H2SocketClient(port: port)
        let id = try client.session.submit(request)
        try client.run { client.responses[id] != nil }
        let h2 = try #require(client.responses[id])
        return (h1, h2)
    }

    @Test(arguments: [
        (
            "a 20 kB header section",
            HTTPRequest(
                method: "GET",
                target: "/hello",
                headers: ["X-Big": String(repeating: "a", count: 20_000)]
            ), 431
        ),
        (
            "a header section just over 16 KiB in many fields",
            HTTPRequest(
                method: "GET",
                target: "/hello",
                headers: HTTPHeaders((0..<17).map { ("x-field-\($0)", String(repeating: "b", count: 1000)) })
            ), 431
        ),
        ("a 10 kB target", HTTPRequest(method: "GET", target: "/" + String(repeating: "p", count: 10_000)), 414),
        (
            "a 2 MB body",
            HTTPRequest(method: "POST", target: "/echo", body: [UInt8](repeating: 0x61, count: 2_000_000)), 413
        ),
    ])
    func aRequestOverALimitGetsTheSameAnswerOnBothProtocols(
        _ what: String,
        _ request: HTTPRequest,
        _ status: Int
    ) throws {
        try withServer { port, _, responder in
            let (h1, h2) = try Self.answersOverBothProtocols(port: port, request)
            #expect(h1.status == status, "\(what) over HTTP/1.1")
            #expect(h2.status == status, "\(what) over HTTP/2")
            #expect(h2.headers["Content-Type"] == "application/problem+json", "\(what) over HTTP/2")
            #expect(h1.headers["Content-Type"] == "application/problem+json", "\(what) over HTTP/1.1")
            #expect(h2.body == h1.body, "the same problem on both: \(String(decoding: h2.body, as: UTF8.self))")
            #expect(responder.received.withLock { $0.isEmpty }, "the responder never sees it")
        }
    }

    @Test func requestsJustUnderTheLimitsAreAnsweredOnBothProtocols() throws {
        // 15 fields of 1000 bytes (about 15.3 kB as HTTP/1.1 field lines, Host included) and an 8 kB target.
        let request = HTTPRequest(
            method: "GET",
            target: "/" + String(repeating: "p", count: 8000),
            headers: HTTPHeaders((0..<15).map { ("x-field-\($0)", String(repeating: "b", count: 1000)) })
        )
        try withServer { port, _, _ in
            let (h1, h2) = try Self.answersOverBothProtocols(port: port, request)
            #expect(h1.status == 200)
            #expect(h2.status == 200)
            #expect(h2.body == h1.body)
        }
    }
}
