import HTTP
import TestSupport
import Testing

/// A comparable summary of response parser events.
enum Received: Equatable, CustomStringConvertible {
    case interim(Int)
    case response(status: Int, body: String, keepAlive: Bool)
    case failure(HTTPResponseParseError.Kind)

    var description: String {
        switch self {
        case .interim(let status): return "interim \(status)"
        case let .response(status, body, keepAlive):
            return "\(status) body=\(body.debugDescription) keepAlive=\(keepAlive)"
        case .failure(let kind): return "failure \(kind)"
        }
    }
}

func summarize(_ events: [HTTPResponseParserEvent]) -> [Received] {
    events.map { event in
        switch event {
        case .informational(let head): return .interim(head.status)
        case .response(let r):
            return .response(status: r.status, body: String(decoding: r.body, as: UTF8.self), keepAlive: r.keepAlive)
        case .failure(let error): return .failure(error.kind)
        }
    }
}

/// Feeds `text` in pieces of `size` bytes (then the end of the stream when `close`), expecting
/// one response per entry of `heads` (true: the request was HEAD).
func receive(
    _ text: String,
    pieces size: Int = .max,
    heads: [Bool] = [false],
    close: Bool = false,
    limits: HTTPResponseLimits = HTTPResponseLimits()
) -> [Received] {
    var parser = HTTPResponseParser(limits: limits)
    for head in heads { parser.expectResponse(toHEAD: head) }
    let bytes = Array(text.utf8)
    var events: [HTTPResponseParserEvent] = []
    var i = 0
    while i < bytes.count {
        let end = size >= bytes.count - i ? bytes.count : i + size
        events += parser.feed(Array(bytes[i..<end]))
        i = end
    }
    if close { events += parser.endOfStream() }
    return summarize(events)
}

@Suite struct HTTPResponseParserTests {
    @Test func readsEveryFramingWhateverTheSplit() {
        let cases: [(String, [Received])] = [
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: W/\"x\"\r\n\r\nhello",
                [.response(status: 200, body: "hello", keepAlive: true)]
            ),
            (
                "HTTP/1.1 304 Not Modified\r\nETag: W/\"x\"\r\nContent-Length: 330\r\n\r\n",
                [.response(status: 304, body: "", keepAlive: true)]
            ),
            (
                "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n",
                [.response(status: 204, body: "", keepAlive: true)]
            ),
            (
                "HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n",
                [.response(status: 202, body: "abcde", keepAlive: true)]
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n",
                [.response(status: 200, body: "0123456789", keepAlive: true)]
            ),
            (
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n",
                [.interim(100), .response(status: 204, body: "", keepAlive: false)]
            ),
            (
                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
                [.interim(103), .response(status: 200, body: "x", keepAlive: true)]
            ),
            ("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", [.response(status: 200, body: "ok", keepAlive: false)]),
            (
                "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok",
                [.response(status: 200, body: "ok", keepAlive: true)]
            ),
            (
                "HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n",
                [.response(status: 200, body: "", keepAlive: false)]
            ),
            ("HTTP/1.1 200 OK\nContent-Length: 2\n\nok", [.response(status: 200, body: "ok", keepAlive: true)]),
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok",
                [.response(status: 200, body: "ok", keepAlive: true)]
            ),
            ("HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n", [.response(status: 404, body: "", keepAlive: true)]),
            ("HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", [.response(status: 404, body: "", keepAlive: true)]),
        ]
        for (text, expected) in cases {
            for size in [1, 2, 3, 7, 1000] {
                #expect(receive(text, pieces: size) == expected, "\(text.debugDescription) in pieces of \(size)")
            }
        }
    }

    @Test func keepsTheStatusLineFieldsInOrderAndTheVersion() {
        var parser = HTTPResponseParser()
        parser.expectResponse(toHEAD: false)
        let events = parser.feed(
            Array("HTTP/1.0 201 Created Here\r\nX-A: 1\r\nx-a:  2 \r\nContent-Length: 0\r\n\r\n".utf8)
        )
        guard case .response(let response) = events.first else {
            Issue.record("no response: \(events)")
            return
        }
        #expect(response.version == .http1_0)
        #expect(response.reason == "Created Here")
        #expect(response.statusLine == "HTTP/1.0 201 Created Here")
        #expect(response.headers.values("X-A") == ["1", "2"])
        #expect(response.response.status == 201)
        #expect(parser.isIdle)
    }

    @Test func aResponseToHEADHasNoBody_whateverItsFieldsSay() {
        let text = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
        #expect(
            receive(text, heads: [true, false]) == [
                .response(status: 200, body: "", keepAlive: true),
                .response(status: 200, body: "hello", keepAlive: true),
            ]
        )
        #expect(
            receive("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", heads: [true]) == [
                .response(status: 200, body: "", keepAlive: true)
            ]
        )
    }

    @Test func readsPipelinedResponsesInOrder_fromOneReadOrByteByByte() {
        let one = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"
        let two = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\n"
        let three = "HTTP/1.1 304 Not Modified\r\n\r\n"
        let expected: [Received] = [
            .response(status: 200, body: "a", keepAlive: true), .response(status: 200, body: "b", keepAlive: true),
            .response(status: 304, body: "", keepAlive: true),
        ]
        for size in [1, 5, 1000] {
            #expect(receive(one + two + three, pieces: size, heads: [false, false, false]) == expected)
        }
        // A deep pipeline: a thousand responses in one read.
        var parser = HTTPResponseParser()
        for _ in 0..<1000 { parser.expectResponse(toHEAD: false) }
        let events = parser.feed(Array(String(repeating: one, count: 1000).utf8))
        #expect(events.count == 1000)
        #expect(parser.outstandingResponses == 0)
        #expect(parser.isIdle)
    }

    @Test func countsOutstandingResponsesAndPartialOnes() {
        var parser = HTTPResponseParser()
        parser.expectResponse(toHEAD: false)
        parser.expectResponse(toHEAD: false)
        #expect(parser.outstandingResponses == 2)
        #expect(!parser.hasPartialResponse)
        _ = parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na".utf8))
        #expect(parser.outstandingResponses == 1)
        #expect(!parser.hasPartialResponse)
        _ = parser.feed(Array("HTTP/1.1 2".utf8))
        #expect(parser.hasPartialResponse)
        #expect(!parser.isIdle)
    }

    @Test func aCloseDelimitedBodyEndsAtEndOfStream() {
        #expect(
            receive("HTTP/1.1 200 OK\r\n\r\npar", pieces: 2, close: true) == [
                .response(status: 200, body: "par", keepAlive: false)
            ]
        )
        #expect(receive("HTTP/1.1 200 OK\r\n\r\n", close: true) == [.response(status: 200, body: "", keepAlive: false)])
        // A final coding other than chunked: the body runs to the close (RFC 9112 §6.3).
        #expect(
            receive("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzz", close: true) == [
                .response(status: 200, body: "zz", keepAlive: false)
            ]
        )
    }

    @Test func aCloseTellsAnUnansweredRequestFromACutResponse() {
        #expect(receive("", close: true) == [.failure(.closedBeforeResponse)])
        #expect(receive("", heads: [], close: true) == [])
        #expect(
            receive("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na", heads: [false, false], close: true)
                == [.response(status: 200, body: "a", keepAlive: true), .failure(.closedBeforeResponse)]
        )
        #expect(receive("HTTP/1.1 200 OK\r\nContent-Len", close: true) == [.failure(.truncated)])
        #expect(receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", close: true) == [.failure(.truncated)])
        #expect(
            receive("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", close: true) == [
                .failure(.truncated)
            ]
        )
        #expect(receive("HTTP/1.1 100 Continue\r\n\r\n", close: true) == [.interim(100), .failure(.truncated)])
        var parser = HTTPResponseParser()
        parser.expectResponse(toHEAD: false)
        _ = parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".utf8))
        guard case .failure(let error) = parser.endOfStream().first else {
            Issue.record("a cut body must fail")
            return
        }
        #expect(error.message.contains("7 bytes before the end of a 10-byte body"))
        #expect(parser.hasFailed)
        #expect(parser.feed(Array("more".utf8)).isEmpty)
    }

    @Test func malformedResponsesFailWithAMessage_notACrash() {
        let cases: [(String, String)] = [
            ("SSH-2.0-OpenSSH_9.2\r\n\r\n", "is not \"HTTP/1.1 200 Reason\""),
            ("HTTP/1.1 abc OK\r\n\r\n", "is not \"HTTP/1.1 200 Reason\""),
            ("HTTP/1.1 20 OK\r\n\r\n", "is not \"HTTP/1.1 200 Reason\""),
            ("HTTP/1.1 2000 OK\r\n\r\n", "is not \"HTTP/1.1 200 Reason\""),
            ("HTTP/1.1 099 Low\r\n\r\n", "not in 100...599"),
            ("HTTP/2.0 200 OK\r\n\r\n", "HTTP/2.0, not HTTP/1.0 or HTTP/1.1"),
            ("HTTP/1.1 200 O\u{1}K\r\n\r\n", "control character"),
            ("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "is not \"Name: value\""),
            ("HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n", "obsolete line folding"),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "is not one decimal number"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "disagree"),
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
                "both Transfer-Encoding and Content-Length"
            ),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "'gzip' is not supported"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", "chunked more than once"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "hexadecimal size"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", "longer than its chunk size"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\rX", "not followed by CRLF"),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n",
                "the chunked body: a header field line is not"
            ),
        ]
        for (text, words) in cases {
            for size in [1, 1000] {
                var parser = HTTPResponseParser()
                parser.expectResponse(toHEAD: false)
                var events: [HTTPResponseParserEvent] = []
                var i = 0
                let bytes = Array(text.utf8)
                while i < bytes.count {
                    events += parser.feed(Array(bytes[i..<min(i + size, bytes.count)]))
                    i += size
                }
                guard events.count == 1, case .failure(let error) = events[0] else {
                    Issue.record("\(text.debugDescription) in pieces of \(size) gave \(summarize(events))")
                    continue
                }
                #expect(error.kind == .malformed)
                #expect(error.message.contains(words), "\(text.debugDescription): \(error.message)")
                #expect(parser.hasFailed)
            }
        }
    }

    @Test func bytesNobodyAskedForAreAnError() {
        #expect(receive("HTTP/1.1 200 OK\r\n\r\n", heads: []) == [.failure(.unexpected)])
        #expect(
            receive("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n")
                == [.response(status: 200, body: "", keepAlive: true), .failure(.unexpected)]
        )
        var parser = HTTPResponseParser()
        guard case .failure(let error) = parser.feed(Array("garbage\u{0}".utf8)).first else {
            Issue.record("unasked bytes must fail")
            return
        }
        #expect(error.message == "the server sent bytes no request asked for: \"garbage.\"")
    }

    @Test func holdingUnannouncedResponsesKeepsThemUntilTheirRequestIsAnnounced() {
        // A raw test connection writes its requests by hand: answers may arrive before the
        // parser hears of them. They wait, whole or in part, instead of failing.
        var parser = HTTPResponseParser(holdingUnannouncedResponses: true)
        #expect(parser.holdsUnannouncedResponses)
        let two = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 2".utf8)
        #expect(parser.feed(two).isEmpty)
        #expect(!parser.hasFailed && parser.hasPartialResponse && parser.outstandingResponses == 0)
        // Announced one at a time, each held answer comes out in order; the rest stays held.
        parser.expectResponse(toHEAD: false)
        #expect(summarize(parser.feed([])) == [.response(status: 200, body: "ok", keepAlive: true)])
        parser.expectResponse(toHEAD: false)
        #expect(summarize(parser.feed([])) == [.response(status: 204, body: "", keepAlive: true)])
        #expect(parser.outstandingResponses == 0 && parser.hasPartialResponse)
        // The cut third answer is still whole bytes to take back, not a failure.
        #expect(parser.takeBufferedBytes() == Array("HTTP/1.1 2".utf8))
        #expect(parser.isIdle && !parser.hasFailed)
        // Held bytes change nothing about the default: unasked bytes fail it.
        #expect(!HTTPResponseParser().holdsUnannouncedResponses)
    }

    @Test func limitsStopHugeHeadsAndBodiesBeforeTheyAreBuffered() {
        let limits = HTTPResponseLimits(maxHeadBytes: 100, maxBodyBytes: 10)
        let bigHead = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 200)
        #expect(receive(bigHead, pieces: 7, limits: limits) == [.failure(.tooLarge)])
        #expect(receive(bigHead + "\r\n\r\n", limits: limits) == [.failure(.tooLarge)])
        #expect(receive("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n", limits: limits) == [.failure(.tooLarge)])
        #expect(
            receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits)
                == [.response(status: 200, body: "0123456789", keepAlive: true)]
        )
        #expect(
            receive("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\n", limits: limits) == [
                .failure(.tooLarge)
            ]
        )
        #expect(
            receive("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", limits: limits) == [
                .failure(.tooLarge)
            ]
        )
        #expect(
            receive("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "z", count: 11), pieces: 3, limits: limits) == [
                .failure(.tooLarge)
            ]
        )
        #expect(
            receive(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: " + String(repeating: "t", count: 200),
                limits: limits
            )
                == [.failure(.tooLarge)]
        )
        #expect(
            receive(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "1", count: 5000),
                limits: limits
            )
                == [.failure(.malformed)]
        )
    }

    @Test func switchingProtocolsHandsBackTheRest() {
        var parser = HTTPResponseParser()
        parser.expectResponse(toHEAD: false)
        let events = parser.feed(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\nPRI".utf8))
        #expect(summarize(events) == [.response(status: 101, body: "", keepAlive: false)])
        #expect(parser.feed(Array("-more".utf8)).isEmpty)
        #expect(parser.takeBufferedBytes() == Array("PRI-more".utf8))
        #expect(parser.endOfStream().isEmpty)
    }

    @Test func aLargeBodyInManyReadsArrivesWhole() {
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var parser = HTTPResponseParser()
        parser.expectResponse(toHEAD: false)
        let bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        var events: [HTTPResponseParserEvent] = []
        var i = 0
        while i < bytes.count {
            events += parser.feed(Array(bytes[i..<min(i + 65_536, bytes.count)]))
            i += 65_536
        }
        guard events.count == 1, case .response(let response) = events[0] else {
            Issue.record("expected one response, got \(summarize(events))")
            return
        }
        #expect(response.body == body)
    }

    @Test func theServersSerializerAndThisParserAgree() {
        var out: [UInt8] = []
        var response = HTTPResponse(status: 200, body: Array("{\"a\":1}".utf8))
        response.headers.set("Content-Type", "application/json")
        HTTPResponseSerializer.write(response, to: &out, keepAlive: true)
        HTTPResponseSerializer.write(HTTPResponse(status: 304), to: &out, keepAlive: true)
        var streamed = HTTPResponse(status: 200)
        streamed.headers.set("Content-Type", "text/event-stream")
        HTTPResponseSerializer.writeStreamHead(streamed, to: &out, requestVersion: .http1_1)
        HTTPResponseSerializer.appendChunk(Array("data: x\n\n".utf8), to: &out)
        out += HTTPResponseSerializer.lastChunk
        var parser = HTTPResponseParser()
        for _ in 0..<3 { parser.expectResponse(toHEAD: false) }
        #expect(
            summarize(parser.feed(out)) == [
                .response(status: 200, body: "{\"a\":1}", keepAlive: true),
                .response(status: 304, body: "", keepAlive: true),
                .response(status: 200, body: "data: x\n\n", keepAlive: false),
            ]
        )
    }

    @Test func randomSplitsOfRandomBytesNeverCrash() {
        var rng = SeededRandom(seed: 0x9E37_79B9_7F4A_7C15)
        func next() -> UInt64 { rng.next() }
        let alphabet = Array("HTTP/1.1 200 OK\r\n:0123456789abcdefContent-LengthTransfer-Encodingchunked;\t ".utf8)
        for _ in 0..<2000 {
            var parser = HTTPResponseParser(limits: HTTPResponseLimits(maxHeadBytes: 256, maxBodyBytes: 256))
            for _ in 0..<4 { parser.expectResponse(toHEAD: next() % 5 == 0) }
            var bytes = Array("HTTP/1.1 200 OK\r\n".utf8)
            for _ in 0..<Int(next() % 120) { bytes.append(alphabet[Int(next() % UInt64(alphabet.count))]) }
            var i = 0
            while i < bytes.count {
                let n = 1 + Int(next() % 9)
                _ = parser.feed(Array(bytes[i..<min(i + n, bytes.count)]))
                i += n
            }
            _ = parser.endOfStream()
        }
    }
}
