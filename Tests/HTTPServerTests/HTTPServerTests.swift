import Dispatch
import Glibc
import HTTP
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// Starts a server on an ephemeral port for one test and stops it afterwards.
func withServer(
    _ configure: (inout HTTPServer.Configuration) -> Void = { _ in },
    responder: TestResponder = TestResponder(),
    log: (any RequestLogSink)? = nil,
    _ body: (Int, HTTPServer, TestResponder) throws -> Void
) throws {
    try withServer(of: responder, configure, log: log, body)
}

/// ``withServer(_:responder:log:_:)`` for any responder.
func withServer<R: Responder>(
    of responder: R,
    _ configure: (inout HTTPServer.Configuration) -> Void = { _ in },
    log: (any RequestLogSink)? = nil,
    _ body: (Int, HTTPServer, R) throws -> Void
) throws {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, responder: responder, log: log)
    let port = try server.start()
    defer {
        let stopped = DispatchSemaphore(value: 0)
        server.stop(graceful: false) { stopped.signal() }
        _ = stopped.wait(timeout: .now() + 10)
    }
    try body(port, server, responder)
}

@Suite struct HTTPServerTests {
    @Test func answersRequestsOnAKeptAliveConnection() throws {
        try withServer { port, _, _ in
            let client = try TestConnection(port: port)
            for i in 0..<3 {
                try client.send("GET /item/\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "GET /item/\(i)")
                #expect(response.header("Connection") == nil)
            }
        }
    }

    @Test func listensOnIPv6AndOnNames() throws {
        try withServer({ $0.host = "::1" }) { port, _, _ in
            let client = try TestConnection(host: "::1", port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().text == "hello")
        }
        try withServer({ $0.host = "localhost" }) { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().text == "hello")
        }
    }

    @Test func answersPipelinedRequestsInOrderEvenWhenLaterOnesAnswerFirst() throws {
        try withServer { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send(
                "GET /delay/200 HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "GET /delay/50 HTTP/1.1\r\nHost: t\r\n\r\nPOST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nbody"
            )
            let bodies = try (0..<4).map { _ in try client.readResponse().text }
            #expect(bodies == ["delayed 200", "hello", "delayed 50", "body"])
        }
    }

    @Test func answersMorePipelinedRequestsThanItTakesAtOnce() throws {
        // 300 requests in one write: reading pauses at the pipelining limit and resumes.
        try withServer({ $0.maxPipelinedRequests = 8 }) { port, _, _ in
            let client = try TestConnection(port: port)
            var batch = ""
            for i in 0..<300 {
                batch +=
                    i % 7 == 0 ? "GET /delay/1 HTTP/1.1\r\nHost: t\r\n\r\n" : "GET /p/\(i) HTTP/1.1\r\nHost: t\r\n\r\n"
            }
            try client.send(batch)
            for i in 0..<300 {
                let expected = i % 7 == 0 ? "delayed 1" : "GET /p/\(i)"
                let text = try client.readResponse().text
                #expect(text == expected)
                if text != expected { break }
            }
        }
    }

    @Test func writesAnswersLargerThanTheSocketBuffer() throws {
        try withServer { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send("GET /bytes/1500000 HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let big = try client.readResponse()
            #expect(big.body.count == 1_500_000)
            #expect(
                stride(from: 0, to: big.body.count, by: 997).allSatisfy {
                    big.body[$0] == UInt8(truncatingIfNeeded: $0 % 251)
                }
            )
            #expect(try client.readResponse().text == "hello")
        }
    }

    @Test func ignoresLateAnswersForClosedConnections() throws {
        try withServer { port, _, responder in
            do {
                let client = try TestConnection(port: port)
                try client.send("GET /delay/100 HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(responder.arrivals.wait(timeout: .now() + 10) == .success)
            }
            // The client is gone before its answers; the server carries on.
            let next = try TestConnection(port: port)
            try next.send("GET /delay/200 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try next.readResponse().text == "delayed 200")
        }
    }

    @Test func servesManyConcurrentConnections() throws {
        try withServer { port, _, _ in
            let clients = try (0..<200).map { _ in try TestConnection(port: port) }
            for (i, client) in clients.enumerated() {
                try client.send("GET /c/\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
            }
            for (i, client) in clients.enumerated() {
                #expect(try client.readResponse().text == "GET /c/\(i)")
            }
        }
    }

    @Test func closesAfterConnectionCloseAndAfterHTTP10() throws {
        try withServer { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send(
                "GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /ignored HTTP/1.1\r\nHost: t\r\n\r\n"
            )
            let response = try client.readResponse()
            #expect(response.header("Connection") == "close")
            #expect(try client.readsEndOfStream())

            let old = try TestConnection(port: port)
            try old.send("GET /b HTTP/1.0\r\n\r\n")
            #expect(try old.readResponse().text == "GET /b")
            #expect(try old.readsEndOfStream())

            let kept = try TestConnection(port: port)
            try kept.send("GET /c HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try kept.readResponse().header("Connection") == "keep-alive")
            try kept.send("GET /d HTTP/1.0\r\n\r\n")
            #expect(try kept.readResponse().text == "GET /d")
        }
    }

    @Test func answersBadRequestsWithProblemJSONThenCloses() throws {
        try withServer { port, _, _ in
            let cases: [(String, Int)] = [
                ("GARBAGE\r\n\r\n", 400),
                ("GET / HTTP/1.1\r\nHost: t\r\nX: a\r\n folded\r\n\r\n", 400),
                ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: t\r\n\r\n", 414),
                ("GET / HTTP/1.1\r\nHost: t\r\nX: \(String(repeating: "a", count: 17000))\r\n\r\n", 431),
                ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n", 413),
                ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
                ("GET / HTTP/3.0\r\nHost: t\r\n\r\n", 505),
            ]
            for (request, status) in cases {
                let client = try TestConnection(port: port)
                try client.send(request)
                let response = try client.readResponse()
                #expect(response.status == status, "\(request.prefix(40))")
                #expect(response.header("Content-Type") == "application/problem+json")
                #expect(response.text.contains("\"status\":\(status)"))
                #expect(response.header("Connection") == "close")
                #expect(response.header("Date") != nil)
                #expect(response.header("Cache-Control") == "no-store")
                #expect(try client.readsEndOfStream())
            }
        }
    }

    @Test func letsARejectedUploadFinishSoTheAnswerIsNotReset() throws {
        try withServer { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n")
            // The server has answered 413 already; it keeps reading so this send completes.
            try client.send([UInt8](repeating: 97, count: 2_000_000))
            client.shutdownWrite()
            let response = try client.readResponse()
            #expect(response.status == 413)
            #expect(try client.readsEndOfStream())
        }
    }

    @Test func answersEarlierPipelinedRequestsBeforeAParseError() throws {
        try withServer { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send("GET /delay/50 HTTP/1.1\r\nHost: t\r\n\r\nBROKEN\r\n\r\n")
            #expect(try client.readResponse().text == "delayed 50")
            #expect(try client.readResponse().status == 400)
            #expect(try client.readsEndOfStream())
        }
    }

    @Test func closeReplyDropsTheConnectionWithoutAnAnswer() throws {
        try withServer { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send("GET /close HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readsEndOfStream())
        }
    }

    @Test func sendsContinueThenReadsTheBody() throws {
        try withServer { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            #expect(try client.readResponse().status == 100)
            try client.send("hello")
            #expect(try client.readResponse().text == "hello")
        }
    }

    @Test func readsChunkedBodiesAndAnswersHeadWithoutBody() throws {
        try withServer { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send(
                "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1\r\n!\r\n0\r\n\r\n"
            )
            #expect(try client.readResponse().text == "hello!")
            try client.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try client.readResponse(head: true)
            #expect(head.header("Content-Length") == "5")
            #expect(head.body.isEmpty)
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().text == "hello")
        }
    }

    @Test func answersAnHTTP2PrefaceWith505WhenHTTP2IsAbsent() throws {
        // Configured off: the test used to return early whenever HTTP/2 was built in, which it always is.
        try withServer({ $0.speaksHTTP2 = false }) { port, server, _ in
            #expect(server.context.http2 == nil)
            let client = try TestConnection(port: port)
            try client.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\u{4}\0\0\0\0\0")
            #expect(try client.readResponse().status == 505)
            #expect(try client.readsEndOfStream())
        }
    }

    @Test func cutsOffAStalledClientWhileServingOthers() throws {
        try withServer({ $0.headerReadTimeout = .milliseconds(300) }) { port, _, _ in
            let stalled = try TestConnection(port: port)
            try stalled.send("GET /slow HTTP/1.1\r\nHost: t\r\nX-Partial: ")
            let other = try connectedClient(port: port)
            for _ in 0..<5 {
                try other.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try other.readResponse().text == "hello")
            }
            // The stalled client hears 408 and the connection ends (the guard is the client's 10 s timeout).
            #expect(try stalled.readResponse().status == 408)
            #expect(try stalled.readsEndOfStream())
            try other.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try other.readResponse().text == "hello")
        }
    }

    @Test func answersASilentNewConnectionWith408AfterTheHeaderTimeout() throws {
        try withServer({ $0.headerReadTimeout = .milliseconds(200) }) { port, _, _ in
            let silent = try TestConnection(port: port)
            let response = try silent.readResponse()
            #expect(response.status == 408)
            #expect(response.header("Date") != nil)
            #expect(response.header("Cache-Control") == "no-store")
            #expect(try silent.readsEndOfStream())
        }
    }

    @Test func closesIdleKeepAliveConnections() throws {
        try withServer({ $0.idleTimeout = .milliseconds(200) }) { port, _, _ in
            let client = try connectedClient(port: port)
            #expect(try client.readsEndOfStream())
        }
    }

    @Test func cutsOffAClientThatStopsReadingItsAnswers() throws {
        try withServer({ $0.idleTimeout = .milliseconds(300) }) { port, server, _ in
            let reader = try TestConnection(port: port)
            try reader.send(String(repeating: "GET /bytes/60000 HTTP/1.1\r\nHost: t\r\n\r\n", count: 50))
            // Never read: once the socket is full, no write progresses and the idle timeout ends it.
            var waited = 0
            while server.connectionCount > 0 && waited < 10_000 {
                usleep(20_000)
                waited += 20
            }
            #expect(server.connectionCount == 0)
            _ = try connectedClient(port: port)
        }
    }

    @Test func survivesAThousandConnectionsOfRandomBytes() throws {
        try withServer { port, _, _ in
            var generator = SeededRandom(seed: 7)
            for i in 0..<1000 {
                let client = try TestConnection(port: port)
                let length = 1 + Int(generator.next() % 512)
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                if i % 3 == 0 { bytes = Array("GET / HTTP/1.1\r\n".utf8) + bytes }
                try client.send(bytes)
                if i % 10 == 0 { client.shutdownWrite() }
            }
            let client = try TestConnection(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().text == "hello")
        }
    }

    @Test func gracefulStopFinishesAnInFlightRequest() throws {
        let responder = TestResponder()
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: responder)
        let port = try server.start()
        let busy = try TestConnection(port: port)
        let idle = try TestConnection(port: port)
        try idle.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try idle.readResponse().text == "hello")
        #expect(responder.arrivals.wait(timeout: .now() + 10) == .success)
        try busy.send("GET /delay/300 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(responder.arrivals.wait(timeout: .now() + 10) == .success)
        let stopped = DispatchSemaphore(value: 0)
        let done = Atomic<Bool>(false)
        server.stop(graceful: true) {
            done.store(true, ordering: .relaxed)
            stopped.signal()
        }
        #expect(try idle.readsEndOfStream())
        let response = try busy.readResponse()
        #expect(response.text == "delayed 300")
        #expect(response.header("Connection") == "close")
        #expect(try busy.readsEndOfStream())
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        let finished = done.load(ordering: .relaxed)
        #expect(finished)
        #expect(throws: TestConnection.Failure.self) { _ = try TestConnection(port: port) }
    }

    @Test func gzipsLargeAnswersForClientsThatAcceptIt() throws {
        try withServer { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send("GET /big HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n")
            let packed = try client.readResponse()
            #expect(packed.header("Content-Encoding") == "gzip")
            #expect(try Gzip.decompress(packed.body).count == 2400)
            try client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            let plain = try client.readResponse()
            #expect(plain.header("Content-Encoding") == nil)
            #expect(plain.body.count == 2400)
        }
    }

    @Test func gracefulStopGivesUpAfterTheGracePeriod() throws {
        let responder = TestResponder()
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .milliseconds(200)
        let server = HTTPServer(configuration: configuration, responder: responder)
        let port = try server.start()
        let client = try TestConnection(port: port)
        try client.send("GET /delay/5000 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(responder.arrivals.wait(timeout: .now() + 10) == .success)
        let stopped = DispatchSemaphore(value: 0)
        server.stop(graceful: true) { stopped.signal() }
        #expect(stopped.wait(timeout: .now() + 4) == .success)
        #expect(try client.readsEndOfStream())
    }

    @Test func logsOneLinePerRequest() throws {
        let recorder = RequestLogRecorder()
        try withServer(log: recorder) { port, _, _ in
            let client = try TestConnection(port: port)
            try client.send("GET /hello?x=1 HTTP/1.1\r\nHost: t\r\n\r\nBAD\r\n\r\n")
            _ = try client.readResponse()
            _ = try client.readResponse()
            #expect(try client.readsEndOfStream())
        }
        // The lines of one loop wake-up are handed over after it: give the last one a moment.
        var logged = recorder.lines
        for _ in 0..<100 where logged.count < 2 {
            usleep(10_000)
            logged = recorder.lines
        }
        #expect(logged.count == 2)
        #expect(logged.first?.hasPrefix("GET /hello?x=1 200 5B ") == true)
        #expect(logged.first?.hasSuffix("us") == true)
        #expect(logged.last?.hasPrefix("- - 400 ") == true)
    }
}

/// A client that got one `/hello` answered. With a short idle timeout a loaded machine may
/// stall the test between connect and send long enough for the server to close first, so
/// this tries a few times instead of failing on scheduling luck.
func connectedClient(port: Int, attempts: Int = 5) throws -> TestConnection {
    var lastError: Error?
    for _ in 0..<attempts {
        do {
            let client = try TestConnection(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            if try client.readResponse().text == "hello" { return client }
        } catch {
            lastError = error
        }
    }
    throw lastError ?? TestConnection.Failure(description: "no answer to /hello")
}
