import HTTP
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// Holds every request's reply until the loop ends its batch, then answers them all with how
/// many that batch end answered: a responder that gathers work over requests (a group commit).
/// With `wantsBatchEnds` false it answers at once, and counts any batch end it is given.
final class GatheringResponder: Responder {
    let wantsBatchEnds: Bool
    private let held = Mutex<[@Sendable (HTTPReply) -> Void]>([])
    /// Batch ends called so far.
    let batchEnds = Atomic<Int>(0)

    init(wantsBatchEnds: Bool) {
        self.wantsBatchEnds = wantsBatchEnds
    }

    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        guard wantsBatchEnds else {
            return reply(.response(HTTPResponse(status: 200, body: Array("at once".utf8))))
        }
        held.withLock { $0.append(reply) }
    }

    func batchEnded() {
        batchEnds.add(1, ordering: .relaxed)
        let replies = held.withLock { held in
            defer { held = [] }
            return held
        }
        for reply in replies {
            reply(.response(HTTPResponse(status: 200, body: Array("batch of \(replies.count)".utf8))))
        }
    }
}

/// Every request a loop hands to a responder that wants batch ends is followed by one on that
/// loop, so work it leaves for the batch's end is always finished (issue 13, the state store's
/// in-place commits).
@Suite struct BatchEndTests {
    @Test func pipelinedHTTP1RequestsAreAnsweredAtTheirBatchsEnd() throws {
        let responder = GatheringResponder(wantsBatchEnds: true)
        try withServer(of: responder) { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send(String(repeating: "GET /a HTTP/1.1\r\nHost: t\r\n\r\n", count: 3))
            let answers = try (0..<3).map { _ in try client.readResponse() }
            #expect(answers.allSatisfy { $0.status == 200 && $0.text.hasPrefix("batch of ") })
            // One batch end per round of ready sockets, not per request: the three arrived in one read.
            #expect(answers.map(\.text) == Array(repeating: "batch of 3", count: 3))
            #expect(responder.batchEnds.load(ordering: .relaxed) == 1)
            // A later request, on its own, gets a batch end of its own.
            try client.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().text == "batch of 1")
            #expect(responder.batchEnds.load(ordering: .relaxed) == 2)
        }
    }

    @Test func anHTTP2RequestIsAnsweredAtItsBatchsEnd() throws {
        let responder = GatheringResponder(wantsBatchEnds: true)
        try withServer(of: responder) { port, _, _ in
            let out = try curl([
                "--http2-prior-knowledge", "-w", "|%{http_version}|%{http_code}", "http://127.0.0.1:\(port)/a",
            ])
            #expect(out == "batch of 1|2|200")
            #expect(responder.batchEnds.load(ordering: .relaxed) >= 1)
        }
    }

    @Test func aResponderThatDoesNotAskGetsNoBatchEnds() throws {
        let responder = GatheringResponder(wantsBatchEnds: false)
        try withServer(of: responder) { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send(String(repeating: "GET /a HTTP/1.1\r\nHost: t\r\n\r\n", count: 2))
            #expect(try (0..<2).map { _ in try client.readResponse().text } == ["at once", "at once"])
            #expect(responder.batchEnds.load(ordering: .relaxed) == 0)
        }
    }
}
