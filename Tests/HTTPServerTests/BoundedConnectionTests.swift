import Dispatch
import Glibc
import HTTP
import TestSupport
import Testing

@testable import HTTPServer

/// What one connection can make the server hold, and for how long: answers a client does
/// not read, answers a zero flow-control window keeps back, requests that never finish.
@Suite struct BoundedConnectionTests {
    /// Room for what the kernel buffers on both sides of a loopback connection (the
    /// server's send buffer autotunes up to 4 MiB): bytes that are not the server's to hold.
    static let socketSlack = 6 << 20

    @Test func aPipeliningClientThatNeverReadsMakesTheServerHoldOnlyUpToTheHighWaterMark() throws {
        // 500 requests for 40 kB answered at once (20 MB in all) in one write, never read.
        let count = 500
        let answerBytes = 40_000
        try withServer { port, _, responder in
            let client = try TestConnection(port: port, receiveBuffer: 64 << 10)
            try client.send(String(repeating: "GET /bytes/\(answerBytes) HTTP/1.1\r\nHost: t\r\n\r\n", count: count))
            let answered = settledValue { responder.received.withLock { $0.count } }
            // Every answer made and not read is held by the server or the kernel.
            let bound = Connection.outputHighWater + answerBytes + Self.socketSlack
            #expect(answered * answerBytes <= bound, "answered \(answered) of \(count) without a read")
            // Reading resumes as the client catches up: every answer arrives, in order.
            for i in 0..<count {
                let response = try client.readResponse()
                #expect(response.status == 200 && response.body.count == answerBytes, "answer \(i)")
                if response.body.count != answerBytes { break }
            }
        }
    }

    @Test func aZeroWindowPeerMakesTheServerHoldOnlyBoundedAnswers() throws {
        // 128 streams whose answers (60 kB each) cannot leave: the client's windows are 0.
        let streams = 128
        let answerBytes = 60_000
        try withServer { port, _, responder in
            let client = try TestConnection(port: port)
            var input = RawH2.preface(settings: [(RawH2.initialWindowSize, 0)])
            for i in 0..<streams { input += RawH2.headers(stream: UInt32(2 * i + 1), path: "/bytes/\(answerBytes)") }
            try client.send(input)
            let answered = settledValue { responder.received.withLock { $0.count } }
            #expect(
                answered * answerBytes <= HTTP2Handler.maxHeldResponseBytes + answerBytes,
                "answered \(answered) of \(streams) while no byte could leave"
            )
            // The windows open: the requests that waited are answered, all of them whole.
            try client.send(
                RawH2.settings([(RawH2.initialWindowSize, 1 << 20)])
                    + RawH2.windowUpdate(stream: 0, increment: 1 << 30)
            )
            let (ended, bodyBytes) = Self.readAnswers(from: client, streams: streams)
            #expect(ended.count == streams)
            #expect(bodyBytes.values.allSatisfy { $0 == answerBytes } && bodyBytes.count == streams)
        }
    }

    /// Reads frames until `streams` streams ended: which ended, and the DATA bytes of each.
    static func readAnswers(from client: TestConnection, streams: Int) -> (ended: Set<UInt32>, bodyBytes: [UInt32: Int])
    {
        var reader = RawH2Reader()
        var bodyBytes: [UInt32: Int] = [:]
        var ended = Set<UInt32>()
        while ended.count < streams {
            guard let chunk = try? client.receiveSome() else { break }
            for frame in reader.feed(chunk[...]) where frame.type == 0x0 || frame.type == 0x1 {
                if frame.type == 0x0 { bodyBytes[frame.stream, default: 0] += frame.payload.count }
                if frame.flags & 0x1 != 0 { ended.insert(frame.stream) }
            }
        }
        return (ended, bodyBytes)
    }

    @Test func aBodyTrickledSlowlyIsCutByTheWholeRequestDeadline() throws {
        try withServer({
            $0.requestReadTimeout = .milliseconds(600)
            $0.idleTimeout = .seconds(5)
        }) { port, _, responder in
            let client = try TestConnection(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n")
            // One byte every 100 ms: progress each time, so the idle timeout never fires.
            var sent = 0
            while sent < 40 {
                usleep(100_000)
                if client.hasPendingInput { break }  // an answer, or EOF
                guard (try? client.send("x")) != nil else { break }
                sent += 1
            }
            #expect(sent < 40, "still reading a body trickled for 4 s")
            let response = try client.readResponse()
            #expect(response.status == 408)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(try client.readsEndOfStream())
            #expect(responder.received.withLock { $0.isEmpty })
        }
    }

    @Test func anHTTP2BodyTrickledSlowlyIsCutByTheWholeRequestDeadline() throws {
        try withServer({
            $0.requestReadTimeout = .milliseconds(600)
            $0.idleTimeout = .seconds(5)
        }) { port, _, responder in
            let client = try TestConnection(port: port)
            try client.send(RawH2.preface() + RawH2.headers(stream: 1, method: "POST", path: "/echo", endStream: false))
            var sent = 0
            var closed = false
            while sent < 40 && !closed {
                usleep(100_000)
                guard (try? client.send(RawH2.data(stream: 1, [0x78]))) != nil else {
                    closed = true
                    break
                }
                sent += 1
                closed = client.peerHasClosed()
            }
            #expect(closed, "still reading a body trickled for 4 s")
            #expect(sent < 40)
            #expect(responder.received.withLock { $0.isEmpty })
        }
    }

    @Test func aSteadyStreamOfQuickRequestsIsNeverCutByTheRequestDeadline() throws {
        // The deadline is per request: many quick requests on one connection outlast it.
        try withServer({ $0.requestReadTimeout = .milliseconds(300) }) { port, _, _ in
            let client = try TestConnection(port: port)
            for _ in 0..<10 {
                try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nok")
                #expect(try client.readResponse().text == "ok")
                usleep(60_000)
            }
        }
    }
}
