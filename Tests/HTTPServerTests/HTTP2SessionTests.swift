import HTTP
import HTTP2
import Testing

/// A client session and a server session wired back to back in memory.
final class HTTP2Pair {
    let client: HTTP2ClientSession
    let server: HTTP2ServerSession
    var serverRequests: [(Int32, HTTPRequest)] = []
    var clientEvents: [HTTP2ClientSession.Event] = []
    var serverErrors: [String] = []
    var serverRejections: [(Int32, HTTPParseError)] = []
    /// Answers each request as it arrives; nil leaves it pending.
    var answer: ((Int32, HTTPRequest) -> HTTPResponse?)? = { _, request in
        HTTPResponse(
            status: 200,
            headers: ["Content-Type": "text/plain"],
            body: Array("\(request.method) \(request.target)".utf8)
        )
    }

    init(server configuration: HTTP2ServerSession.Configuration = .init()) throws {
        client = try HTTP2ClientSession()
        server = try HTTP2ServerSession(configuration: configuration)
    }

    /// Moves bytes both ways until neither side has anything to say.
    func pump(maxRounds: Int = 100) {
        for _ in 0..<maxRounds {
            clientEvents += client.takeEvents()
            let toServer = client.takeOutput()
            for event in server.feed(toServer) {
                switch event {
                case .request(let id, let request):
                    serverRequests.append((id, request))
                    if let response = answer?(id, request) { server.respond(response, to: id) }
                case .rejected(let id, let error):
                    serverRejections.append((id, error))
                    server.respond(HTTPResponse(status: error.status, body: Array(error.message.utf8)), to: id)
                case .connectionError(let message):
                    serverErrors.append(message)
                }
            }
            let toClient = server.takeOutput()
            clientEvents += client.feed(toClient)
            if toServer.isEmpty && toClient.isEmpty { return }
        }
    }

    var responses: [Int32: HTTPResponse] {
        var out: [Int32: HTTPResponse] = [:]
        for case .response(let id, let response) in clientEvents { out[id] = response }
        return out
    }
}

@Suite struct HTTP2SessionTests {
    @Test func prefaceDetectionDecidesOnTheFirstDifferingByte() {
        #expect(HTTP2Preface.match(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nextra".utf8)) == .http2)
        #expect(HTTP2Preface.match(Array("PRI * HT".utf8)) == .needMoreBytes)
        #expect(HTTP2Preface.match([UInt8]()) == .needMoreBytes)
        #expect(HTTP2Preface.match(Array("GET / HTTP/1.1\r\n".utf8)) == .notHTTP2)
        #expect(HTTP2Preface.match(Array("PRX".utf8)) == .notHTTP2)
    }

    @Test func requestPseudoHeadersMapToMethodTargetAndHost() throws {
        let pair = try HTTP2Pair()
        let id = try pair.client.submit(
            HTTPRequest(
                method: "GET",
                target: "/v1/projects/demo/release-control?platform=ios",
                headers: ["Host": "example.test:8080", "If-None-Match": "W/\"abc\""]
            )
        )
        pair.pump()
        let (serverID, request) = try #require(pair.serverRequests.first)
        #expect(serverID == id)
        #expect(request.method == "GET")
        #expect(request.target == "/v1/projects/demo/release-control?platform=ios")
        #expect(request.version == .http2)
        #expect(request.headers["Host"] == "example.test:8080")
        #expect(request.headers["if-none-match"] == "W/\"abc\"")
        #expect(request.query("platform") == "ios")
        let response = try #require(pair.responses[id])
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain")
        #expect(response.headers["content-length"] == String(response.body.count))
        #expect(String(decoding: response.body, as: UTF8.self) == "GET /v1/projects/demo/release-control?platform=ios")
    }

    /// The server writes `content-length` from the body's size as digits: none, one, a round
    /// ten and five digits, each as the HTTP/1.1 serializer would spell it.
    @Test func contentLengthIsTheBodysSizeInDecimal() throws {
        for size in [0, 7, 10, 12_345] {
            let pair = try HTTP2Pair()
            pair.answer = { _, _ in HTTPResponse(status: 200, body: Array(repeating: 0x61, count: size)) }
            let id = try pair.client.submit(HTTPRequest(method: "GET", target: "/sized"))
            pair.pump()
            let response = try #require(pair.responses[id])
            #expect(response.headers["content-length"] == "\(size)", "body of \(size) bytes")
            #expect(response.body.count == size)
        }
    }

    /// Answers framed one after another each carry their own fields only: the one header block
    /// the session lays every answer out in keeps nothing of the one before, also after a huge
    /// section (which it does not keep) and after a field refused for its name.
    @Test func eachAnswerCarriesOnlyItsOwnFields() throws {
        let pair = try HTTP2Pair()
        let huge = String(repeating: "v", count: 20_000)
        pair.answer = { _, request in
            switch request.target {
            case "/first": return HTTPResponse(status: 200, headers: ["X-First": "1", "Cache-Control": "no-store"])
            case "/huge": return HTTPResponse(status: 200, headers: ["X-Huge": huge, "Bad Name": "x"])
            default: return HTTPResponse(status: 204, headers: ["X-Last": "3"])
            }
        }
        var answers: [String: HTTPResponse] = [:]
        for target in ["/first", "/huge", "/last"] {
            let id = try pair.client.submit(HTTPRequest(method: "GET", target: target))
            pair.pump()
            answers[target] = try #require(pair.responses[id])
        }
        #expect(answers["/first"]?.headers["x-first"] == "1")
        #expect(answers["/first"]?.headers["cache-control"] == "no-store")
        #expect(answers["/huge"]?.headers["x-huge"] == huge)
        #expect(answers["/huge"]?.headers["x-first"] == nil)
        #expect(answers["/huge"]?.headers["cache-control"] == nil)
        #expect(answers["/huge"]?.headers.count == 2, "x-huge and content-length; the bad name is left out")
        #expect(answers["/last"]?.status == 204)
        #expect(answers["/last"]?.headers.map(\.name) == ["x-last"])
    }

    @Test func multiplexedStreamsAreAnsweredOutOfOrder() throws {
        let pair = try HTTP2Pair()
        pair.answer = nil
        let ids = try (0..<5).map { try pair.client.submit(HTTPRequest(method: "GET", target: "/r/\($0)")) }
        pair.pump()
        #expect(pair.serverRequests.count == 5)
        for (id, request) in pair.serverRequests.reversed() {
            pair.server.respond(HTTPResponse(status: 200, body: Array(request.target.utf8)), to: id)
        }
        pair.pump()
        for (index, id) in ids.enumerated() {
            #expect(pair.responses[id].map { String(decoding: $0.body, as: UTF8.self) } == "/r/\(index)")
        }
        #expect(pair.client.activeStreamCount == 0)
        #expect(pair.server.openStreamCount == 0)
    }

    @Test func requestBodiesArriveWholeAcrossFlowControlWindows() throws {
        let pair = try HTTP2Pair()
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        pair.answer = { _, request in HTTPResponse(status: 201, body: Array(String(request.body.count).utf8)) }
        let id = try pair.client.submit(
            HTTPRequest(
                method: "POST",
                target: "/admin/projects/demo/rules",
                headers: ["Content-Type": "application/json"],
                body: body
            )
        )
        pair.pump()
        #expect(pair.serverRequests.first?.1.body == body)
        #expect(pair.responses[id]?.status == 201)
    }

    @Test func largeResponseBodiesArriveWhole() throws {
        let pair = try HTTP2Pair()
        let body = [UInt8](repeating: 0x61, count: 3 << 20)
        pair.answer = { _, _ in HTTPResponse(status: 200, body: body) }
        let id = try pair.client.submit(HTTPRequest(method: "GET", target: "/big"))
        pair.pump(maxRounds: 1000)
        #expect(pair.responses[id]?.body.count == body.count)
    }

    @Test func bodiesOverTheLimitAnswer413WithoutReachingTheResponder() throws {
        let pair = try HTTP2Pair(server: .init(limits: HTTPLimits(maxBodyBytes: 1000)))
        let id = try pair.client.submit(
            HTTPRequest(method: "POST", target: "/x", body: [UInt8](repeating: 1, count: 1001))
        )
        let ok = try pair.client.submit(
            HTTPRequest(method: "POST", target: "/y", body: [UInt8](repeating: 1, count: 1000))
        )
        pair.pump()
        #expect(pair.responses[id]?.status == 413)
        #expect(pair.serverRejections.map(\.1) == [HTTPLimits(maxBodyBytes: 1000).bodyTooLarge])
        #expect(pair.responses[ok]?.status == 200)
        #expect(pair.serverRequests.map(\.1.target) == ["/y"])
    }

    @Test func streamsResetInTheSameReadAreNeverHandedOut() throws {
        // Rapid reset: 100 requests, each reset right after its HEADERS, in one read.
        let server = try HTTP2ServerSession()
        var input = RawH2.preface()
        for i in 0..<100 {
            let stream = UInt32(2 * i + 1)
            input += RawH2.headers(stream: stream, path: "/openapi.json") + RawH2.reset(stream: stream)
        }
        input += RawH2.headers(stream: 201, path: "/kept")
        let requests = server.feed(input).compactMap { event -> String? in
            if case .request(_, let request) = event { request.target } else { nil }
        }
        #expect(requests == ["/kept"])
        #expect(server.openStreamCount == 1)
    }

    @Test func heldResponseBytesCountWhatAClosedWindowKeepsBack() throws {
        let server = try HTTP2ServerSession()
        var input = RawH2.preface(settings: [(RawH2.initialWindowSize, 0)])
        input += RawH2.headers(stream: 1, path: "/a") + RawH2.headers(stream: 3, path: "/b")
        let events = server.feed(input)
        #expect(events.count == 2)
        #expect(server.respond(HTTPResponse(status: 200, body: [UInt8](repeating: 1, count: 5000)), to: 1))
        #expect(server.respond(HTTPResponse(status: 200, body: [UInt8](repeating: 2, count: 7000)), to: 3))
        _ = server.takeOutput()
        #expect(server.queuedResponseBytes == 12_000, "no DATA can leave through a zero window")
        _ = server.feed(
            RawH2.windowUpdate(stream: 1, increment: 100_000) + RawH2.windowUpdate(stream: 3, increment: 2000)
        )
        _ = server.takeOutput()
        #expect(server.queuedResponseBytes == 5000)
        _ = server.feed(RawH2.reset(stream: 3))
        #expect(server.queuedResponseBytes == 0, "a reset stream's unsent answer is dropped")
    }

    @Test func headersAndPathOverTheLimitsAreRejectedWithHTTP1sStatuses() throws {
        let limits = HTTPLimits(maxTargetBytes: 100, maxHeaderBytes: 200)
        let server = try HTTP2ServerSession(configuration: .init(limits: limits))
        var input = RawH2.preface()
        input += RawH2.headers(stream: 1, path: "/" + String(repeating: "p", count: 100))
        input += RawH2.headers(stream: 3, path: "/ok", fields: [("x-big", String(repeating: "b", count: 200))])
        input += RawH2.headers(
            stream: 5,
            path: "/" + String(repeating: "p", count: 99),
            fields: [("x-fits", String(repeating: "b", count: 180))]
        )
        var rejected: [Int32: HTTPParseError] = [:]
        var accepted: [Int32] = []
        for event in server.feed(input) {
            switch event {
            case .rejected(let id, let error): rejected[id] = error
            case .request(let id, _): accepted.append(id)
            case .connectionError(let message): Issue.record("connection error: \(message)")
            }
        }
        #expect(rejected == [1: limits.targetTooLong, 3: limits.headerSectionTooLarge])
        #expect(accepted == [5])
    }

    @Test func headAnd304AnswersCarryNoBody() throws {
        let pair = try HTTP2Pair()
        pair.answer = { _, request in
            request.method == "HEAD"
                ? HTTPResponse(status: 200, body: Array("hello".utf8))
                : HTTPResponse(status: 304, headers: ["ETag": "W/\"1\""], body: Array("ignored".utf8))
        }
        let head = try pair.client.submit(HTTPRequest(method: "HEAD", target: "/"))
        let notModified = try pair.client.submit(HTTPRequest(method: "GET", target: "/"))
        pair.pump()
        #expect(pair.responses[head]?.status == 200)
        #expect(pair.responses[head]?.body == [])
        #expect(pair.responses[head]?.headers["content-length"] == "5")
        #expect(pair.responses[notModified]?.status == 304)
        #expect(pair.responses[notModified]?.body == [])
        #expect(pair.responses[notModified]?.headers["etag"] == "W/\"1\"")
    }

    @Test func connectionSpecificAndInvalidResponseHeadersAreDropped() throws {
        let pair = try HTTP2Pair()
        pair.answer = { _, _ in
            HTTPResponse(
                status: 200,
                headers: [
                    "Connection": "keep-alive", "Transfer-Encoding": "chunked",
                    "X-Bad": "a\r\nb", "Bad Name": "x", "X-Good": "yes",
                ],
                body: [1]
            )
        }
        let id = try pair.client.submit(HTTPRequest(method: "GET", target: "/"))
        pair.pump()
        let response = try #require(pair.responses[id])
        #expect(response.headers["x-good"] == "yes")
        #expect(!response.headers.contains("connection"))
        #expect(!response.headers.contains("transfer-encoding"))
        #expect(!response.headers.contains("x-bad"))
    }

    @Test func resetAnswersTheStreamWithRstStream() throws {
        let pair = try HTTP2Pair()
        pair.answer = nil
        let id = try pair.client.submit(HTTPRequest(method: "GET", target: "/"))
        pair.pump()
        #expect(pair.server.reset(id))
        pair.pump()
        #expect(pair.clientEvents.contains { if case .reset(id, .internalError) = $0 { true } else { false } })
        #expect(!pair.server.respond(HTTPResponse(status: 200), to: id), "a late answer to a reset stream is ignored")
    }

    @Test func answersToStreamsTheClientCancelledAreIgnored() throws {
        let pair = try HTTP2Pair()
        pair.answer = nil
        let id = try pair.client.submit(HTTPRequest(method: "GET", target: "/slow"))
        pair.pump()
        pair.client.cancel(id)
        pair.pump()
        #expect(!pair.server.respond(HTTPResponse(status: 200, body: [1]), to: id))
        pair.pump()
        #expect(pair.server.openStreamCount == 0)
    }

    @Test func clientHoldsRequestsBeyondThePeersConcurrencyLimit() throws {
        let pair = try HTTP2Pair(server: .init(maxConcurrentStreams: 2))
        pair.answer = nil
        pair.pump()  // exchange SETTINGS first
        #expect(pair.client.peerMaxConcurrentStreams == 2)
        let ids = try (0..<5).map { try pair.client.submit(HTTPRequest(method: "GET", target: "/\($0)")) }
        pair.pump()
        #expect(pair.serverRequests.count == 2)
        #expect(!pair.client.canStartStreamNow)
        while pair.responses.count < 5 {
            let pending = pair.serverRequests.filter { request in !pair.responses.keys.contains(request.0) }
            #expect(pending.count <= 2)
            guard !pending.isEmpty else { break }
            for (id, _) in pending { pair.server.respond(HTTPResponse(status: 204), to: id) }
            pair.pump()
        }
        #expect(Set(pair.responses.keys) == Set(ids))
        #expect(pair.responses.values.allSatisfy { $0.status == 204 })
    }

    @Test func gracefulTerminateFinishesOpenStreamsThenEnds() throws {
        let pair = try HTTP2Pair()
        pair.answer = nil
        let id = try pair.client.submit(HTTPRequest(method: "GET", target: "/"))
        pair.pump()
        pair.server.terminate(graceful: true)
        pair.pump()
        #expect(pair.clientEvents.contains { if case .goaway(id, .noError) = $0 { true } else { false } })
        #expect(pair.client.receivedGoaway)
        #expect(throws: HTTP2Error.self) { try pair.client.submit(HTTPRequest(method: "GET", target: "/late")) }
        #expect(!pair.server.isFinished)
        pair.server.respond(HTTPResponse(status: 200), to: id)
        pair.pump()
        #expect(pair.responses[id]?.status == 200)
        #expect(pair.server.isFinished)
    }

    @Test func garbageAfterThePrefaceGetsGoawayWithProtocolError() throws {
        let server = try HTTP2ServerSession()
        var input = HTTP2Preface.bytes
        input += [0, 0, 4, 0xFF, 0, 0, 0, 0, 0, 1, 2, 3, 4]  // unknown frame type before SETTINGS
        input += Array("GET / HTTP/1.1\r\n\r\n".utf8)
        _ = server.feed(input)
        let output = server.takeOutput()
        #expect(containsGoaway(output, code: .protocolError))
        #expect(server.isFinished)
    }

    @Test func aWrongPrefaceGetsGoawayAndAConnectionError() throws {
        let server = try HTTP2ServerSession()
        let events = server.feed(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(events.contains { if case .connectionError = $0 { true } else { false } })
        #expect(containsGoaway(server.takeOutput(), code: .protocolError))
        #expect(server.isFinished)
    }

    @Test func upgradeContinuesTheHTTP1RequestOnStreamOne() throws {
        // SETTINGS payload: MAX_CONCURRENT_STREAMS = 100, base64url without padding.
        let request = HTTPRequest(
            method: "GET",
            target: "/healthz",
            headers: [
                "Host": "x", "Connection": "Upgrade, HTTP2-Settings",
                "Upgrade": "h2c", "HTTP2-Settings": "AAMAAABk",
            ]
        )
        let server = try HTTP2ServerSession(upgrading: request)
        let client = try HTTP2ClientSession()
        #expect(
            server.respond(HTTPResponse(status: 200, body: Array("ok".utf8)), to: HTTP2ServerSession.upgradeStreamID)
        )
        // The client side of an upgrade is not the client session's business; check the frames.
        _ = server.feed(client.takeOutput())
        let output = server.takeOutput()
        #expect(containsFrame(output, type: 0x1, stream: 1))  // HEADERS on stream 1
        #expect(containsFrame(output, type: 0x0, stream: 1))  // DATA on stream 1
    }

    @Test func upgradeSettingsAreCheckedBeforeAnyoneSays101() {
        #expect(HTTP2ServerSession.acceptsUpgradeSettings(""))  // no settings: allowed
        #expect(HTTP2ServerSession.acceptsUpgradeSettings("AAMAAABkAAQCAAAAAAIAAAAA"))  // curl's
        #expect(!HTTP2ServerSession.acceptsUpgradeSettings("!!"))  // not base64url
        #expect(!HTTP2ServerSession.acceptsUpgradeSettings("AAMAAA"))  // 4 bytes: not whole settings
        #expect(!HTTP2ServerSession.acceptsUpgradeSettings("AAIAAAAC"))  // ENABLE_PUSH = 2
        #expect(!HTTP2ServerSession.acceptsUpgradeSettings("AAUAAAAA"))  // MAX_FRAME_SIZE = 0
    }

    @Test func upgradeWithoutSettingsHeaderIsRefused() {
        #expect(throws: HTTP2Error.self) {
            _ = try HTTP2ServerSession(upgrading: HTTPRequest(method: "GET", target: "/", headers: ["Upgrade": "h2c"]))
        }
        #expect(throws: HTTP2Error.self) {
            _ = try HTTP2ServerSession(
                upgrading: HTTPRequest(method: "GET", target: "/", headers: ["HTTP2-Settings": "!!"])
            )
        }
    }
}

/// Walks HTTP/2 frames in `bytes` (no preface) looking for a frame of `type` on `stream`.
func containsFrame(_ bytes: [UInt8], type: UInt8, stream: UInt32) -> Bool {
    frames(bytes).contains { $0.type == type && $0.stream == stream }
}

func containsGoaway(_ bytes: [UInt8], code: HTTP2ErrorCode) -> Bool {
    frames(bytes).contains { frame in
        frame.type == 0x7 && frame.payload.count >= 8
            && frame.payload[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } == code.rawValue
    }
}

func frames(_ bytes: [UInt8]) -> [(type: UInt8, stream: UInt32, payload: [UInt8])] {
    var out: [(type: UInt8, stream: UInt32, payload: [UInt8])] = []
    var i = 0
    while i + 9 <= bytes.count {
        let length = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
        let stream =
            (UInt32(bytes[i + 5]) << 24 | UInt32(bytes[i + 6]) << 16 | UInt32(bytes[i + 7]) << 8 | UInt32(bytes[i + 8]))
            & 0x7FFF_FFFF
        let end = min(bytes.count, i + 9 + length)
        out.append((bytes[i + 3], stream, Array(bytes[(i + 9)..<end])))
        i += 9 + length
    }
    return out
}
