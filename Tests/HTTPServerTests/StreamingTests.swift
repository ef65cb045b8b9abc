import Dispatch
import Glibc
import HTTP
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// Answers every request with a stream and hands the streams to the test.
final class StreamResponder: Responder {
    let streams = Mutex<[ResponseStream]>([])
    let opened = DispatchSemaphore(value: 0)
    let ended = DispatchSemaphore(value: 0)
    let lifetime: Duration?

    init(lifetime: Duration? = nil) { self.lifetime = lifetime }

    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        let stream = ResponseStream(
            maxBufferedBytes: 64 << 10,
            heartbeat: Array(": beat\n\n".utf8),
            heartbeatInterval: .seconds(1),
            lifetime: lifetime
        )
        stream.onEnd { [ended] in ended.signal() }
        streams.withLock { $0.append(stream) }
        reply(.stream(HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"]), stream))
        opened.signal()
    }

    func waitForStream() -> ResponseStream? {
        guard opened.wait(timeout: .now() + 10) == .success else { return nil }
        return streams.withLock { $0.last }
    }
}

func withStreamServer(
    lifetime: Duration? = nil,
    _ body: (Int, HTTPServer, StreamResponder) throws -> Void
) throws {
    try withServer(of: StreamResponder(lifetime: lifetime), { _ in }, body)
}

/// Waits (at most 5 s) for the server to have closed every connection.
func waitForNoConnections(_ server: HTTPServer) {
    var waited = 0
    while server.connectionCount > 0 && waited < 5000 {
        usleep(10_000)
        waited += 10
    }
}

@Suite struct StreamingTests {
    @Test func sendsAStreamAsChunksWhileItIsWrittenAndEndsItWithTheLastChunk() throws {
        try withStreamServer { port, _, responder in
            let client = try TestConnection(port: port)
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            let stream = try #require(responder.waitForStream())
            #expect(stream.write(Array("data: one\n\n".utf8)))
            let head = try client.readText(through: "data: one\n\n")
            #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(head.contains("Transfer-Encoding: chunked\r\n"))
            #expect(head.contains("Connection: close\r\n"))
            #expect(!head.contains("Content-Length"))
            #expect(head.hasSuffix("\r\nb\r\ndata: one\n\n"))
            #expect(stream.write(Array("data: two\n\n".utf8)))
            #expect(try client.readText(through: "data: two\n\n").hasSuffix("b\r\ndata: two\n\n"))
            stream.finish()
            #expect(try client.readText(through: "0\r\n\r\n").hasSuffix("\r\n0\r\n\r\n"))
            #expect(try client.readsEndOfStream())
            #expect(responder.ended.wait(timeout: .now() + 5) == .success)
        }
    }

    @Test func anHTTP10StreamEndsWhenTheConnectionCloses() throws {
        try withStreamServer { port, _, responder in
            let client = try TestConnection(port: port)
            try client.send("GET /events HTTP/1.0\r\n\r\n")
            let stream = try #require(responder.waitForStream())
            stream.write(Array("data: x\n\n".utf8))
            let text = try client.readText(through: "data: x\n\n")
            #expect(!text.contains("chunked"))
            #expect(text.hasSuffix("\r\n\r\ndata: x\n\n"))
            stream.finish()
            #expect(try client.readsEndOfStream())
        }
    }

    @Test func aClientThatHangsUpEndsItsStreamAndLaterWritesAreRefused() throws {
        try withStreamServer { port, server, responder in
            var client: TestConnection? = try TestConnection(port: port)
            try client?.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            let stream = try #require(responder.waitForStream())
            client = nil  // closes the socket
            #expect(responder.ended.wait(timeout: .now() + 5) == .success)
            #expect(!stream.write(Array("data: late\n\n".utf8)))
            #expect(!stream.isOpen)
            waitForNoConnections(server)
            #expect(server.connectionCount == 0)
        }
    }

    @Test func aReaderThatStopsReadingIsDroppedNotBufferedFor() throws {
        try withStreamServer { port, server, responder in
            let client = try TestConnection(port: port)
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            let stream = try #require(responder.waitForStream())
            let event = Array(("data: " + String(repeating: "x", count: 8000) + "\n\n").utf8)
            var written = 0
            // The client never reads: socket buffers fill, then the server's bound cuts it off.
            while stream.write(event) && written < 256 << 20 {
                written += event.count
                if written % (512 << 10) < event.count { usleep(2_000) }
            }
            #expect(written < 64 << 20, "the stream took \(written) bytes for a reader that reads nothing")
            #expect(responder.ended.wait(timeout: .now() + 10) == .success)
            waitForNoConnections(server)
            #expect(server.connectionCount == 0)
        }
    }

    @Test func aQuietStreamGetsHeartbeats() throws {
        try withStreamServer { port, _, responder in
            let client = try TestConnection(port: port)
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = try #require(responder.waitForStream())
            #expect(try client.readText(through: ": beat\n\n").contains(": beat"))
        }
    }

    /// `serve --events-max-seconds`: a stream with a lifetime ends by itself, whole, on both transports.
    @Test func aStreamWithALifetimeEndsByItselfOverHTTP1AndH2c() throws {
        try withStreamServer(lifetime: .milliseconds(150)) { port, _, responder in
            let client = try TestConnection(port: port)
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            let stream = try #require(responder.waitForStream())
            #expect(stream.write(Array("data: one\n\n".utf8)))
            #expect(try client.readText(through: "0\r\n\r\n").contains("data: one\n\n"))
            #expect(try client.readsEndOfStream())
            #expect(!stream.isOpen)
            let h2 = try H2SocketClient(port: port)
            let id = try h2.session.submit(HTTPRequest(method: "GET", target: "/events"))
            try h2.send()
            let second = try #require(responder.waitForStream())
            #expect(second.write(Array("data: two\n\n".utf8)))
            try h2.run { h2.responses[id] != nil }
            #expect(String(decoding: try #require(h2.responses[id]).body, as: UTF8.self) == "data: two\n\n")
        }
    }

    @Test func anH2cStreamSendsWhatIsWrittenLaterAndEndsWithTheStream() throws {
        try withStreamServer { port, _, responder in
            let client = try H2SocketClient(port: port)
            let id = try client.session.submit(HTTPRequest(method: "GET", target: "/events"))
            try client.send()
            let stream = try #require(responder.waitForStream())
            // Written after the head went out: the deferred body resumes for each write.
            #expect(stream.write(Array("data: one\n\n".utf8)))
            usleep(50_000)
            #expect(stream.write(Array("data: two\n\n".utf8)))
            stream.finish()
            try client.run { client.responses[id] != nil }
            let response = try #require(client.responses[id])
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "text/event-stream")
            #expect(String(decoding: response.body, as: UTF8.self) == "data: one\n\ndata: two\n\n")
            #expect(responder.ended.wait(timeout: .now() + 5) == .success)
        }
    }

    @Test func theWriteBoundEndsAStreamNobodyTakesFrom() {
        let stream = ResponseStream(maxBufferedBytes: 100)
        let ended = Mutex(false)
        stream.onEnd { ended.withLock { $0 = true } }
        #expect(stream.write(Array(repeating: 1, count: 60)))
        #expect(!stream.write(Array(repeating: 1, count: 60)))
        #expect(stream.take().ending == .overflowed)
        stream.end()
        #expect(ended.withLock { $0 })
        #expect(!stream.write([1]))
    }
}
