import HTTP
import TestSupport
import Testing

/// A comparable summary of parser events.
enum Seen: Equatable, CustomStringConvertible {
    case request(method: String, target: String, version: HTTPVersion, headers: [String], body: String, keepAlive: Bool)
    case expectContinue
    case failure(Int)

    var description: String {
        switch self {
        case let .request(method, target, version, headers, body, keepAlive):
            return "\(method) \(target) \(version.text) \(headers) body=\(body.debugDescription) keepAlive=\(keepAlive)"
        case .expectContinue: return "100-continue"
        case .failure(let status): return "failure \(status)"
        }
    }
}

func summarize(_ events: [HTTPParserEvent]) -> [Seen] {
    events.map { event in
        switch event {
        case let .request(request, keepAlive):
            return .request(
                method: request.method,
                target: request.target,
                version: request.version,
                headers: request.headers.fields.map { "\($0.name)=\($0.value)" },
                body: String(decoding: request.body, as: UTF8.self),
                keepAlive: keepAlive
            )
        case .expectContinue: return .expectContinue
        case .failure(let error): return .failure(error.status)
        }
    }
}

func parse(_ text: String, limits: HTTPLimits = HTTPLimits()) -> [Seen] {
    var parser = HTTPRequestParser(limits: limits)
    return summarize(parser.feed(Array(text.utf8)))
}

func parse(_ bytes: [UInt8], limits: HTTPLimits = HTTPLimits()) -> [Seen] {
    var parser = HTTPRequestParser(limits: limits)
    return summarize(parser.feed(bytes))
}

func status(_ text: String, limits: HTTPLimits = HTTPLimits()) -> Int? {
    for seen in parse(text, limits: limits) {
        if case .failure(let status) = seen { return status }
    }
    return nil
}

@Suite struct HTTPRequestParserTests {
    static let mixed = [
        "GET /a?x=1 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n",
        "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
        "PUT /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0A\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n",
        "\r\nGET /d HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "DELETE /e HTTP/1.1\nHost: h\nConnection: close\n\n",
    ].joined()

    @Test func parsesASimpleRequest() {
        #expect(
            parse("GET /healthz?x=1 HTTP/1.1\r\nHost: example\r\nX-A:  spaced  \r\n\r\n") == [
                .request(
                    method: "GET",
                    target: "/healthz?x=1",
                    version: .http1_1,
                    headers: ["Host=example", "X-A=spaced"],
                    body: "",
                    keepAlive: true
                )
            ]
        )
    }

    @Test func parsesPipelinedRequestsInOrder() {
        let seen = parse(Self.mixed)
        #expect(seen.count == 5)
        #expect(
            seen.map { if case let .request(m, t, _, _, _, _) = $0 { return "\(m) \(t)" } else { return "?" } }
                == ["GET /a?x=1", "POST /b", "PUT /c", "GET /d", "DELETE /e"]
        )
        guard seen.count == 5 else { return }
        if case let .request(_, _, _, _, body, _) = seen[1] { #expect(body == "hello") }
        if case let .request(_, _, _, _, body, _) = seen[2] { #expect(body == "abc0123456789") }
        if case let .request(_, _, version, _, _, keepAlive) = seen[3] {
            #expect(version == .http1_0)
            #expect(keepAlive)
        }
        if case let .request(_, _, _, _, _, keepAlive) = seen[4] { #expect(!keepAlive) }
    }

    @Test func givesTheSameEventsWhenSplitAtEveryByteBoundary() {
        let bytes = Array(Self.mixed.utf8)
        let whole = parse(bytes)
        for split in 0...bytes.count {
            var parser = HTTPRequestParser()
            var events = parser.feed(Array(bytes[..<split]))
            events += parser.feed(Array(bytes[split...]))
            #expect(summarize(events) == whole, "split at \(split)")
        }
    }

    @Test func givesTheSameEventsWhenFedOneByteAtATime() {
        let bytes = Array(Self.mixed.utf8)
        var parser = HTTPRequestParser()
        var events: [HTTPParserEvent] = []
        for byte in bytes { events += parser.feed([byte]) }
        #expect(summarize(events) == parse(bytes))
        #expect(parser.isBetweenRequests)
    }

    @Test func pullFormStopsAtEachRequestAndKeepsTheRest() {
        var parser = HTTPRequestParser()
        let bytes = Array("GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\nrest".utf8)
        bytes.withUnsafeBytes { raw in
            let (first, used) = parser.next(raw)
            guard case .request(let request, _)? = first else {
                Issue.record("no first request")
                return
            }
            #expect(request.target == "/1")
            #expect(used == 28)
            let rest = UnsafeRawBufferPointer(rebasing: raw[used...])
            let (second, used2) = parser.next(rest)
            guard case .request(let request2, _)? = second else {
                Issue.record("no second request")
                return
            }
            #expect(request2.target == "/2")
            let (third, used3) = parser.next(UnsafeRawBufferPointer(rebasing: rest[used2...]))
            #expect(third == nil)
            #expect(used3 == 4)
        }
        #expect(parser.takeBufferedBytes() == Array("rest".utf8))
    }

    @Test func acceptsEveryRequestTargetForm() {
        func target(_ line: String) -> String? {
            if case let .request(_, target, _, _, _, _)? = parse(line + "\r\nHost: h\r\n\r\n").first { return target }
            return nil
        }
        #expect(target("GET http://example.com/a/b?c=1 HTTP/1.1") == "/a/b?c=1")
        #expect(target("GET HTTPS://example.com HTTP/1.1") == "/")
        #expect(target("GET http://example.com?x=1 HTTP/1.1") == "/?x=1")
        #expect(target("OPTIONS * HTTP/1.1") == "*")
        #expect(target("CONNECT example.com:443 HTTP/1.1") == "example.com:443")
        #expect(status("GET relative/path HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET * HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
    }

    @Test func keepAliveFollowsVersionAndConnection() {
        func keepAlive(_ text: String) -> Bool? {
            if case let .request(_, _, _, _, _, keepAlive)? = parse(text).first { return keepAlive }
            return nil
        }
        #expect(keepAlive("GET / HTTP/1.1\r\nHost: h\r\n\r\n") == true)
        #expect(keepAlive("GET / HTTP/1.1\r\nHost: h\r\nConnection: Close\r\n\r\n") == false)
        #expect(keepAlive("GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade, close\r\n\r\n") == false)
        #expect(keepAlive("GET / HTTP/1.0\r\n\r\n") == false)
        #expect(keepAlive("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n") == true)
    }

    @Test func announcesExpectContinueBeforeTheBody() {
        var parser = HTTPRequestParser()
        let head = summarize(
            parser.feed(Array("POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n".utf8))
        )
        #expect(head == [.expectContinue])
        let body = summarize(parser.feed(Array("ok".utf8)))
        #expect(body.count == 1)
        // With the body already there, no interim answer is needed.
        #expect(parse("POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok").count == 1)
        #expect(status("POST /x HTTP/1.1\r\nHost: h\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\nok") == 417)
    }

    @Test func rejectsMalformedRequestLines() {
        #expect(status("GET\r\n\r\n") == 400)
        #expect(status("GET / \r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET  / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1 \r\nHost: h\r\n\r\n") == 400)
        #expect(status("G(T / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET /a\u{7}b HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET / HTTQ/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(status("GET / HTTP/2.0\r\nHost: h\r\n\r\n") == 505)
        #expect(status("GET / HTTP/1.2\r\nHost: h\r\n\r\n") == 505)
        #expect(status("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == 505)
    }

    @Test func rejectsMalformedFields() {
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  folded\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nX-A : 1\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\n: empty-name\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{0}b\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\n\r\n") == 400, "HTTP/1.1 needs Host")
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == 400)
    }

    @Test func appliesRFC9112FramingRules() {
        let base = "POST / HTTP/1.1\r\nHost: h\r\n"
        #expect(status(base + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == 400)
        #expect(status(base + "Content-Length: abc\r\n\r\n") == 400)
        #expect(status(base + "Content-Length: -1\r\n\r\n") == 400)
        #expect(status(base + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd") == 400)
        #expect(parse(base + "Content-Length: 3, 3\r\n\r\nabc").count == 1)
        #expect(status(base + "Transfer-Encoding: gzip\r\n\r\n") == 400)
        #expect(status(base + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n") == 501)
        #expect(status(base + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n") == 400)
        #expect(status("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == 400)
        #expect(status(base + "Transfer-Encoding: chunked\r\n\r\nzz\r\n") == 400)
        #expect(status(base + "Transfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n") == 400)
        #expect(parse(base + "Transfer-Encoding: Chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n").count == 1)
    }

    @Test func enforcesTheTargetLimitExactly() {
        let limit = HTTPLimits().maxTargetBytes
        let atLimit = "/" + String(repeating: "a", count: limit - 1)
        #expect(status("GET \(atLimit) HTTP/1.1\r\nHost: h\r\n\r\n") == nil)
        #expect(status("GET \(atLimit)b HTTP/1.1\r\nHost: h\r\n\r\n") == 414)
        // A request line that never ends is cut off once it is surely too long.
        #expect(status("GET /" + String(repeating: "a", count: limit + 100)) == 414)
        #expect(status(String(repeating: "A", count: limit + 100)) == 400)
    }

    @Test func enforcesTheHeaderSectionLimitExactly() {
        let limit = HTTPLimits().maxHeaderBytes
        // "Host: h\r\n" is 9 bytes; pad one field so the section is exactly `limit`.
        let filler = limit - 9 - "X-Pad: \r\n".utf8.count
        let atLimit = "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: \(String(repeating: "p", count: filler))\r\n\r\n"
        #expect(status(atLimit) == nil)
        let overLimit = "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: \(String(repeating: "p", count: filler + 1))\r\n\r\n"
        #expect(status(overLimit) == 431)
        // A header section that never ends is cut off too.
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nX-Pad: " + String(repeating: "p", count: limit + 10)) == 431)
    }

    @Test func enforcesTheBodyLimitExactly() {
        let limits = HTTPLimits(maxBodyBytes: 100)
        let body = String(repeating: "b", count: 100)
        #expect(status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n\(body)", limits: limits) == nil)
        #expect(status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n\(body)b", limits: limits) == 413)
        let chunked = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(
            status(chunked + "32\r\n\(body.prefix(50))\r\n32\r\n\(body.prefix(50))\r\n0\r\n\r\n", limits: limits) == nil
        )
        #expect(
            status(chunked + "32\r\n\(body.prefix(50))\r\n33\r\n\(body.prefix(51))\r\n0\r\n\r\n", limits: limits) == 413
        )
        #expect(status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n") == 400)
        #expect(status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048577\r\n\r\n") == 413)
    }

    @Test func enforcesTheTrailerLimit() {
        let limits = HTTPLimits(maxHeaderBytes: 64)
        let chunked = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        #expect(status(chunked + "X-T: \(String(repeating: "t", count: 80))\r\n\r\n", limits: limits) == 431)
        #expect(status(chunked + "X-T: t\r\n\r\n", limits: limits) == nil)
    }

    @Test func ignoresInputAfterAFailure() {
        var parser = HTTPRequestParser()
        let first = summarize(parser.feed(Array("BAD\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)))
        #expect(first == [.failure(400)])
        #expect(parser.feed(Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)).isEmpty)
        #expect(parser.hasFailed)
    }

    @Test func neverCrashesOnRandomBytes() {
        var generator = SeededRandom(seed: 42)
        for _ in 0..<2000 {
            var parser = HTTPRequestParser()
            let length = Int(generator.next() % 300)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if generator.next() % 2 == 0 { bytes = Array("GET / HTTP/1.1\r\n".utf8) + bytes }
            _ = parser.feed(bytes)
        }
    }
}
