import HTTP
import Testing

@Suite struct HTTPResponseSerializerTests {
    func text(
        _ response: HTTPResponse,
        keepAlive: Bool = true,
        version: HTTPVersion = .http1_1,
        headOnly: Bool = false
    ) -> String {
        String(
            decoding: HTTPResponseSerializer.bytes(
                response,
                keepAlive: keepAlive,
                requestVersion: version,
                headOnly: headOnly
            ),
            as: UTF8.self
        )
    }

    @Test func writesStatusFieldsLengthAndBody() {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("hello".utf8))
        #expect(text(response) == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
    }

    @Test func saysCloseWhenClosingAndKeepAliveToHTTP10() {
        let response = HTTPResponse(status: 404, body: Array("{}".utf8))
        #expect(
            text(response, keepAlive: false)
                == "HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"
        )
        #expect(
            text(response, version: .http1_0)
                == "HTTP/1.1 404 Not Found\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}"
        )
    }

    @Test func replacesFramingFieldsTheApplicationSet() {
        let response = HTTPResponse(
            status: 200,
            headers: ["content-length": "99", "Transfer-Encoding": "chunked", "Connection": "x"],
            body: Array("ab".utf8)
        )
        #expect(text(response) == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab")
    }

    @Test func leavesBodyAndLengthOffWhereTheyDoNotBelong() {
        #expect(
            text(HTTPResponse(status: 304, headers: ["ETag": "W/\"1\""], body: Array("x".utf8)))
                == "HTTP/1.1 304 Not Modified\r\nETag: W/\"1\"\r\n\r\n"
        )
        #expect(text(HTTPResponse(status: 204)) == "HTTP/1.1 204 No Content\r\n\r\n")
        #expect(
            text(HTTPResponse(status: 200, body: Array("hello".utf8)), headOnly: true)
                == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
        )
    }

    @Test func writesLargeLengthsAndOddStatuses() {
        let body = [UInt8](repeating: 65, count: 1_234_567)
        let bytes = HTTPResponseSerializer.bytes(HTTPResponse(status: 299, body: body))
        let head = String(decoding: bytes.prefix(60), as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 299 Status 299\r\nContent-Length: 1234567\r\n\r\nAAA"))
        #expect(text(HTTPResponse(status: 42)).hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
    }

    @Test func appendsToAnExistingBuffer() {
        var out = Array("prefix|".utf8)
        HTTPResponseSerializer.write(HTTPResponse(status: 200), to: &out, keepAlive: true)
        #expect(String(decoding: out, as: UTF8.self) == "prefix|HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    }
}
