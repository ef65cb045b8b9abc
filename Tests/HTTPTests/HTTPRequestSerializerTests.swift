import HTTP
import Testing

@Suite struct HTTPRequestSerializerTests {
    func text(_ request: HTTPRequest, authority: String = "127.0.0.1:8080") -> String {
        String(decoding: HTTPRequestSerializer.bytes(request, authority: authority), as: UTF8.self)
    }

    @Test func writesRequestLineHostFieldsAndNoLengthForABodilessGet() {
        let request = HTTPRequest(
            method: "GET",
            target: "/v1/x?a=b",
            headers: ["Accept": "application/json", "If-None-Match": "W/\"1\""]
        )
        #expect(
            text(request)
                == "GET /v1/x?a=b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: application/json\r\nIf-None-Match: W/\"1\"\r\n\r\n"
        )
        #expect(
            text(HTTPRequest(method: "HEAD", target: "/"), authority: "[::1]:9")
                == "HEAD / HTTP/1.1\r\nHost: [::1]:9\r\n\r\n"
        )
    }

    @Test func writesContentLengthFromTheBody_droppingTheCallersFraming() {
        let request = HTTPRequest(
            method: "POST",
            target: "/p",
            headers: ["Content-Length": "99", "transfer-encoding": "chunked", "Content-Type": "application/json"],
            body: Array("{}".utf8)
        )
        #expect(
            text(request)
                == "POST /p HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        )
        #expect(
            text(HTTPRequest(method: "PUT", target: "/t"))
                == "PUT /t HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 0\r\n\r\n"
        )
        #expect(
            text(HTTPRequest(method: "DELETE", target: "/t")) == "DELETE /t HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
        )
        #expect(
            text(HTTPRequest(method: "DELETE", target: "/t", body: [1]))
                == "DELETE /t HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 1\r\n\r\n\u{1}"
        )
    }

    @Test func keepsTheCallersHostAndConnection() {
        let request = HTTPRequest(method: "GET", target: "/", headers: ["Host": "example.test", "Connection": "close"])
        #expect(text(request) == "GET / HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n")
    }

    @Test func appendsAfterWhatIsInTheBuffer_soPipelinedRequestsShareOneWrite() {
        var out: [UInt8] = []
        HTTPRequestSerializer.write(HTTPRequest(method: "GET", target: "/a"), authority: "h", to: &out)
        HTTPRequestSerializer.write(HTTPRequest(method: "GET", target: "/b"), authority: "h", to: &out)
        #expect(
            String(decoding: out, as: UTF8.self)
                == "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n"
        )
    }

    @Test func theServersParserReadsBackWhatItWrites() {
        let request = HTTPRequest(
            method: "PATCH",
            target: "/v1/r%20s?q=1",
            headers: ["X-A": "1", "X-A": "2"],
            body: Array("body".utf8)
        )
        var parser = HTTPRequestParser()
        let events = parser.feed(HTTPRequestSerializer.bytes(request, authority: "h:1"))
        guard events.count == 1, case .request(let parsed, let keepAlive) = events[0] else {
            Issue.record("expected one request, got \(events)")
            return
        }
        #expect(parsed.method == "PATCH")
        #expect(parsed.target == "/v1/r%20s?q=1")
        #expect(parsed.headers["host"] == "h:1")
        #expect(parsed.headers.values("x-a") == ["1", "2"])
        #expect(parsed.body == Array("body".utf8))
        #expect(keepAlive)
    }
}
