import Clock
import HTTP
import TestSupport
import Testing

@testable import HTTPServer

/// `Date` and cache directives as clients see them, over both protocols (issue 18).
@Suite struct DateAndCachingTests {
    static let start = Instant(rfc3339: "2031-05-06T07:08:09.750Z")!

    @Test func everyHTTP1AnswerCarriesTheConfiguredClocksDateAndACacheDirective() throws {
        let clock = ManualScheduler(now: Self.start)
        try withServer({ $0.clock = clock }) { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let live = try client.readResponse()
            #expect(live.header("Date") == "Tue, 06 May 2031 07:08:09 GMT")
            #expect(live.header("Cache-Control") == "no-store")
            #expect(live.headers.filter { $0.name.lowercased() == "date" }.count == 1)

            try client.send("GET /doc HTTP/1.1\r\nHost: t\r\n\r\n")
            let document = try client.readResponse()
            #expect(document.status == 200)
            #expect(document.header("Cache-Control") == "max-age=60")
            let etag = try #require(document.header("ETag"))
            #expect(etag.hasPrefix("W/\""))

            clock.advance(bySeconds: 90)
            try client.send("GET /doc HTTP/1.1\r\nHost: t\r\nIf-None-Match: \(etag)\r\n\r\n")
            let notModified = try client.readResponse()
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            #expect(notModified.header("ETag") == etag)
            #expect(notModified.header("Cache-Control") == "max-age=60")
            #expect(notModified.header("Date") == "Tue, 06 May 2031 07:09:39 GMT")
            #expect(notModified.header("Vary") == "Accept-Encoding")  // as the (gzip-sized) 200 said
            #expect(notModified.header("Content-Type") == nil)
            // The same connection still frames the next answer right after the bodiless 304.
            try client.send("HEAD /doc HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try client.readResponse(head: true)
            #expect(head.status == 200)
            #expect(head.header("ETag") == etag)
        }
    }

    @Test func aResponderCannotSendADateOfItsOwn() throws {
        let responder = DatedResponder()
        let clock = ManualScheduler(now: Self.start)
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.clock = clock
        let server = HTTPServer(configuration: configuration, responder: responder)
        let port = try server.start()
        defer { server.stop(graceful: false) }
        let client = try TestConnection(port: port)
        try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(
            response.headers.filter { $0.name.lowercased() == "date" }.map(\.value) == ["Tue, 06 May 2031 07:08:09 GMT"]
        )
    }

    @Test func everyHTTP2AnswerCarriesDateAndCacheDirectivesAnd304sWork() throws {
        let clock = ManualScheduler(now: Self.start)
        try withServer({ $0.clock = clock }) { port, _, _ in
            let client = try H2SocketClient(port: port)
            let live = try client.session.submit(HTTPRequest(method: "GET", target: "/hello"))
            let document = try client.session.submit(HTTPRequest(method: "GET", target: "/doc"))
            try client.run { client.responses.count == 2 }
            let liveResponse = try #require(client.responses[live])
            #expect(liveResponse.headers["date"] == "Tue, 06 May 2031 07:08:09 GMT")
            #expect(liveResponse.headers["cache-control"] == "no-store")
            let documentResponse = try #require(client.responses[document])
            let etag = try #require(documentResponse.headers["etag"])
            #expect(documentResponse.headers["cache-control"] == "max-age=60")

            let again = try client.session.submit(
                HTTPRequest(method: "GET", target: "/doc", headers: ["If-None-Match": etag])
            )
            try client.run { client.responses.count == 3 }
            let notModified = try #require(client.responses[again])
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            #expect(notModified.headers["etag"] == etag)
            #expect(notModified.headers["date"] == "Tue, 06 May 2031 07:08:09 GMT")
            #expect(notModified.headers["vary"] == "Accept-Encoding")
        }
    }

    @Test func theDateFieldFormatsOncePerSecondAndFollowsTheClockEitherWay() {
        let clock = ManualScheduler(now: Self.start)
        let field = DateField(clock: clock)
        let first = field.current()
        #expect(first == "Tue, 06 May 2031 07:08:09 GMT")
        clock.advance(to: Self.start.adding(milliseconds: 249))  // 07:08:09.999: same second, same value
        #expect(field.current() == first)
        clock.advance(to: Self.start.adding(milliseconds: 250))
        #expect(field.current() == "Tue, 06 May 2031 07:08:10 GMT")
        let before = DateField(clock: ManualScheduler(now: Instant(millisecondsSinceEpoch: -1)))
        #expect(before.current() == "Wed, 31 Dec 1969 23:59:59 GMT")
    }
}

/// Answers with a `Date` of its own, which the server must replace.
private struct DatedResponder: Responder {
    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        reply(
            .response(
                HTTPResponse(status: 200, headers: ["Date": "Mon, 01 Jan 2001 00:00:00 GMT"], body: Array("x".utf8))
            )
        )
    }
}

@Suite struct HTTP2RejectionTests {
    @Test func anHTTP2BodyOverTheLimitGetsADatedProblemThatNoCacheKeeps() throws {
        try withServer({ $0.limits.maxBodyBytes = 1000 }) { port, _, responder in
            let client = try H2SocketClient(port: port)
            let id = try client.session.submit(
                HTTPRequest(method: "POST", target: "/echo", body: [UInt8](repeating: 1, count: 5000))
            )
            try client.run { client.responses.count == 1 }
            let response = try #require(client.responses[id])
            #expect(response.status == 413)
            #expect(response.headers["content-type"] == "application/problem+json")
            #expect(String(decoding: response.body, as: UTF8.self).contains("larger than 1000 bytes"))
            #expect(response.headers["date"]?.hasSuffix(" GMT") == true)
            #expect(response.headers["cache-control"] == "no-store")
            #expect(responder.received.withLock { $0.isEmpty })
        }
    }
}
