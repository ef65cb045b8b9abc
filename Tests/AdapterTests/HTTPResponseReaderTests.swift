@testable import Adapter
import LerixSDK
import Testing

@Suite struct HTTPResponseReaderTests {
    func feedInPieces(_ text: String, size: Int) -> HTTPResponseReader.Outcome {
        var reader = HTTPResponseReader()
        let bytes = Array(text.utf8)
        var outcome = HTTPResponseReader.Outcome.needMore
        var i = 0
        while i < bytes.count {
            outcome = reader.feed(Array(bytes[i..<min(i + size, bytes.count)]))
            i += size
            if case .complete = outcome { break }
            if case .invalid = outcome { break }
        }
        return outcome
    }

    @Test func readsContentLengthChunkedAndEmptyBodiesWhateverTheSplit() {
        let cases: [(String, Int, String, Bool)] = [
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: W/\"x\"\r\n\r\nhello", 200, "hello", true),
            ("HTTP/1.1 304 Not Modified\r\nETag: W/\"x\"\r\n\r\n", 304, "", true),
            ("HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n", 202, "abcde", true),
            ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", 204, "", false),
            ("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, "ok", false),
        ]
        for (text, status, body, keepAlive) in cases {
            for size in [1, 3, 7, 1000] {
                guard case .complete(let response, let alive) = feedInPieces(text, size: size) else {
                    Issue.record("no response for \(text.debugDescription) in pieces of \(size)")
                    continue
                }
                #expect(response.status == status)
                #expect(response.body == Array(body.utf8))
                #expect(alive == keepAlive)
            }
        }
    }

    @Test func closeDelimitedBodiesEndAtEndOfStreamAndCutOnesFail() {
        var reader = HTTPResponseReader()
        #expect(reader.feed(Array("HTTP/1.1 200 OK\r\n\r\npartial".utf8)) == .needMore)
        guard case .complete(let response, false) = reader.endOfStream() else {
            Issue.record("expected a close-delimited response")
            return
        }
        #expect(response.body == Array("partial".utf8))
        var cut = HTTPResponseReader()
        _ = cut.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".utf8))
        guard case .invalid = cut.endOfStream() else {
            Issue.record("a cut response must fail")
            return
        }
    }

    @Test func garbageIsInvalidNotACrash() {
        for text in ["SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
                     "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
                     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"] {
            var reader = HTTPResponseReader()
            guard case .invalid = reader.feed(Array(text.utf8)) else {
                Issue.record("accepted \(text.debugDescription)")
                continue
            }
        }
    }

    @Test func requestTargetsSplitHostPortAndPath() {
        let target = RequestTarget(url: "http://127.0.0.1:8080/v1/x?a=b")
        #expect(target?.host == "127.0.0.1")
        #expect(target?.port == 8080)
        #expect(target?.path == "/v1/x?a=b")
        #expect(target?.hostHeader == "127.0.0.1:8080")
        #expect(RequestTarget(url: "http://localhost")?.path == "/")
        #expect(RequestTarget(url: "http://[::1]:9/p")?.host == "::1")
        #expect(RequestTarget(url: "https://x/")?.port == 443)
        #expect(RequestTarget(url: "https://x/")?.hostHeader == "x")
        #expect(RequestTarget(url: "ftp://x/") == nil)
        #expect(RequestTarget(url: "http://:80/") == nil)
        #expect(RequestTarget(url: "http://x:99999/") == nil)
    }
}

