import HTTP
import HTTP2
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// HTTP/2 uploads that never finish (issue 42 item 2): 128 streams a connection, each with a
/// 1 MiB window, once let 32 connections hold 3.4 GB. A connection now holds at most its bound,
/// the server at most its budget; past either a stream is answered 503 and its data dropped, and
/// everything held is given back when the streams or the connection close.
@Suite struct UnfinishedBodyTests {
    static func post(_ stream: UInt32, _ bytes: Int, end: Bool = false) -> [UInt8] {
        RawH2.headers(stream: stream, method: "POST", path: "/upload", endStream: false)
            + RawH2.data(stream: stream, [UInt8](repeating: 0x61, count: bytes), endStream: end)
    }

    static func rejections(_ events: [HTTP2ServerSession.Event]) -> [Int32: Int] {
        var out: [Int32: Int] = [:]
        for case .rejected(let stream, let error) in events { out[stream] = error.status }
        return out
    }

    @Test func theWindowIsWhatOneRequestMayCarry() {
        #expect(
            HTTP2ServerSession.Configuration(limits: HTTPLimits(maxBodyBytes: 100_000)).initialWindowSize == 100_000
        )
        #expect(HTTP2ServerSession.Configuration(limits: HTTPLimits(maxBodyBytes: 10)).initialWindowSize == 65_535)
    }

    @Test func unfinishedBodiesPastTheConnectionsBoundAre503AndTheirDataDropped() throws {
        let session = try HTTP2ServerSession(
            configuration: .init(limits: HTTPLimits(maxBodyBytes: 1000), maxBufferedBodyBytes: 1000)
        )
        var events = session.feed(RawH2.preface() + Self.post(1, 600) + Self.post(3, 600) + Self.post(5, 600))
        #expect(Self.rejections(events) == [3: 503, 5: 503])
        #expect(session.bufferedBodyBytes == 600)
        // More data on a refused stream costs nothing; the first stream still completes.
        events = session.feed(
            RawH2.data(stream: 3, [UInt8](repeating: 1, count: 300))
                + RawH2.data(stream: 1, [UInt8](repeating: 1, count: 300), endStream: true)
        )
        var requests: [HTTPRequest] = []
        for case .request(_, let request) in events { requests.append(request) }
        #expect(requests.map(\.body.count) == [900])
        #expect(session.bufferedBodyBytes <= 1000)
        session.respond(HTTPResponse(status: 204), to: 1)
        for stream: Int32 in [3, 5] { session.respond(HTTPResponse(status: 503), to: stream) }
        _ = session.takeOutput()
        #expect(session.bufferedBodyBytes == 0, "closed streams give their bytes back")
    }

    @Test func connectionsShareTheServersBudgetAndGiveItBackWhenTheyClose() throws {
        let budget = BodyBudget(limit: 1500)
        let configuration = HTTP2ServerSession.Configuration(
            limits: HTTPLimits(maxBodyBytes: 1000),
            maxBufferedBodyBytes: 4000,
            bodyBudget: budget
        )
        var first: HTTP2ServerSession? = try HTTP2ServerSession(configuration: configuration)
        let second = try HTTP2ServerSession(configuration: configuration)
        let firstEvents = first?.feed(RawH2.preface() + Self.post(1, 1000)) ?? []
        #expect(Self.rejections(firstEvents).isEmpty)
        #expect(Self.rejections(second.feed(RawH2.preface() + Self.post(1, 1000))) == [1: 503])
        #expect(budget.heldBytes == 1000)
        first = nil  // the connection closes with its upload unfinished
        #expect(budget.heldBytes == 0)
        #expect(Self.rejections(second.feed(Self.post(3, 1000))).isEmpty, "room again")
    }

    @Test func aBudgetNeverGoesPastItsLimitOrBelowZero() {
        let budget = BodyBudget(limit: 10)
        #expect(budget.reserve(6))
        #expect(!budget.reserve(5))
        #expect(budget.reserve(4))
        budget.release(10)
        #expect(budget.heldBytes == 0)
        #expect(!budget.reserve(Int.max), "no overflow")
    }
}

/// The same budget over HTTP/1.1, on a live server: connections part-way through uploads hold
/// at most the server's budget between them, past it an upload is answered 503, the server
/// keeps answering, and a closed connection gives its bytes back.
@Suite struct UnfinishedHTTP1BodyTests {
    static func upload(_ length: Int, sending bytes: Int) -> [UInt8] {
        Array("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: \(length)\r\n\r\n".utf8)
            + [UInt8](repeating: 0x61, count: bytes)
    }

    @Test func http1UploadsShareTheServersBudgetAndGiveItBackWhenTheyClose() throws {
        try withServer({ $0.maxBufferedBodyBytes = 1 << 20 }) { port, server, _ in
            let budget = server.context.bodyBudget
            var first: TestConnection? = try TestConnection(port: port)
            try first?.send(Self.upload(1_000_000, sending: 700_000))
            #expect(settledValue { budget.heldBytes } >= 700_000)
            let second = try TestConnection(port: port)
            try second.send(Self.upload(1_000_000, sending: 700_000))
            #expect(try second.readResponse().status == 503)
            let check = try TestConnection(port: port)
            try check.send("GET /item/1 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try check.readResponse().status == 200, "answered while the budget is spent")
            first = nil  // closes with its upload unfinished
            #expect(becomesTrue { budget.heldBytes == 0 }, "held \(budget.heldBytes) bytes 10 s after the close")
            let third = try TestConnection(port: port)
            try third.send(Self.upload(100, sending: 100))
            #expect(try third.readResponse().status == 200, "room again")
        }
    }

    @Test func freedBodyMemoryIsHandedBackOnceEnoughWasReleased() {
        let budget = BodyBudget(limit: 64 << 20)
        let trims = Counter()
        let freed = FreedMemoryReturn(budget: budget) { trims.add() }
        #expect(budget.reserve(4 << 20))
        budget.release(4 << 20)
        freed.connectionClosed()
        freed.waitForTrim()
        #expect(trims.value == 0, "4 MiB freed: not worth a trim yet")
        #expect(budget.reserve(6 << 20))
        budget.release(6 << 20)
        freed.connectionClosed()
        freed.waitForTrim()
        #expect(trims.value == 1)
        freed.connectionClosed()
        freed.waitForTrim()
        #expect(trims.value == 1, "nothing freed since")
    }
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
