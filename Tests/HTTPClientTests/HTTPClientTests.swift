import Dispatch
import HTTP
import HTTPClient
import HTTPServer
import Reactor
import Sockets
import Synchronization
import TLS
import TestSupport
import Testing

/// The HTTP/1.1 client against the real server on port 0 (IPv4 and IPv6 loopback, TLS) and,
/// for answers the real server never gives, against ``ScriptedServer``.
@Suite struct HTTPClientTests {
    static func client(_ configure: (inout HTTPClient.Configuration) -> Void = { _ in }) throws -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configure(&configuration)
        return try HTTPClient(configuration: configuration)
    }

    static func url(_ text: String) throws -> HTTPURL { try HTTPURL(parsing: text) }

    static func get(
        _ client: HTTPClient,
        _ url: HTTPURL,
        method: String = "GET",
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = []
    ) async -> Result<ReceivedResponse, HTTPClientError> {
        await withCheckedContinuation { continuation in
            client.send(HTTPRequest(method: method, target: url.target, headers: headers, body: body), to: url) {
                continuation.resume(returning: $0)
            }
        }
    }

    static func text(_ result: Result<ReceivedResponse, HTTPClientError>) -> String {
        switch result {
        case .success(let response): return "\(response.status) \(String(decoding: response.body, as: UTF8.self))"
        case .failure(let error): return "error: \(error)"
        }
    }

    static func startServer(
        host: String = "127.0.0.1",
        tls: TLSContext? = nil,
        idleTimeout: Duration = .seconds(75)
    ) throws -> (HTTPServer, Int) {
        let server = HTTPServer(
            configuration: .init(host: host, port: 0, idleTimeout: idleTimeout, tls: tls),
            responder: ClientTestResponder()
        )
        return (server, try server.start())
    }

    // MARK: Against the real server

    @Test func getsOverIPv4IPv6AndLocalhost() async throws {
        for host in ["127.0.0.1", "::1"] {
            let (server, port) = try Self.startServer(host: host)
            let client = try Self.client()
            let authority = host == "::1" ? "[::1]" : host
            #expect(
                Self.text(await Self.get(client, try Self.url("http://\(authority):\(port)/hello"))) == "200 hello",
                "\(host)"
            )
            if host == "127.0.0.1" {
                #expect(
                    Self.text(await Self.get(client, try Self.url("http://localhost:\(port)/hello"))) == "200 hello"
                )
            }
            let answer = try await client.send(
                HTTPRequest(method: "POST", target: "/echo", body: Array("ping".utf8)),
                to: try Self.url("http://\(authority):\(port)/")
            )
            #expect(answer.status == 200 && answer.body == Array("ping".utf8) && answer.keepAlive)
            #expect(answer.headers["Content-Length"] == "4")
            await server.stop()
        }
    }

    @Test func keepAliveReusesOneConnectionForSequentialRequests() async throws {
        let (server, port) = try Self.startServer()
        let client = try Self.client()
        let url = try Self.url("http://127.0.0.1:\(port)/")
        for i in 0..<20 {
            #expect(Self.text(await Self.get(client, url.with(target: "/n/\(i)"))) == "200 GET /n/\(i)")
        }
        #expect(client.connectionCount == 1)
        #expect(server.connectionCount == 1)
        await server.stop()
    }

    @Test func pipelinesRequestsOnOneConnectionAndMatchesAnswersInOrder() async throws {
        // The server answers the gate only once all 8 requests have arrived, so they must all
        // be written on the one connection before any answer: pipelining, not one at a time.
        let (server, port) = try Self.startServer()
        let client = try Self.client {
            $0.maximumConnectionsPerOrigin = 1
            $0.maximumPipelineDepth = 8
            $0.readTimeout = .seconds(10)
        }
        let url = try Self.url("http://127.0.0.1:\(port)/")
        let answers = await withTaskGroup(of: (Int, String).self) { group in
            for i in 0..<8 {
                group.addTask { (i, Self.text(await Self.get(client, url.with(target: "/gate/8?i=\(i)")))) }
            }
            var all: [Int: String] = [:]
            for await (i, text) in group { all[i] = text }
            return all
        }
        for i in 0..<8 { #expect(answers[i] == "200 gate /gate/8?i=\(i)") }
        #expect(server.connectionCount == 1)
        await server.stop()
    }

    @Test func withoutPipeliningAGateNeedsSeveralConnections() async throws {
        let (server, port) = try Self.startServer()
        let client = try Self.client {
            $0.maximumConnectionsPerOrigin = 4
            $0.maximumPipelineDepth = 1
        }
        let url = try Self.url("http://127.0.0.1:\(port)/")
        let answers = await withTaskGroup(of: String.self) { group in
            for i in 0..<4 { group.addTask { Self.text(await Self.get(client, url.with(target: "/gate/4?i=\(i)"))) } }
            var all: [String] = []
            for await text in group { all.append(text) }
            return all
        }
        #expect(answers.sorted() == (0..<4).map { "200 gate /gate/4?i=\($0)" })
        #expect(client.connectionCount == 4)
        await server.stop()
    }

    @Test func manyConcurrentRequestsShareABoundedSetOfConnections() async throws {
        let (server, port) = try Self.startServer()
        let client = try Self.client {
            $0.maximumConnectionsPerOrigin = 4
            $0.maximumPipelineDepth = 16
        }
        let url = try Self.url("http://127.0.0.1:\(port)/")
        let failures = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<300 {
                group.addTask { Self.text(await Self.get(client, url.with(target: "/r/\(i)"))) == "200 GET /r/\(i)" }
            }
            var bad = 0
            for await ok in group where !ok { bad += 1 }
            return bad
        }
        #expect(failures == 0)
        #expect(client.connectionCount <= 4)
        await server.stop()
    }

    @Test func readsChunkedStreamsBigBodiesAndBodilessAnswers() async throws {
        let (server, port) = try Self.startServer()
        let client = try Self.client { $0.maximumConnectionsPerOrigin = 1 }
        let url = try Self.url("http://127.0.0.1:\(port)/")
        let streamed = try await client.send(HTTPRequest(method: "GET", target: "/stream"), to: url)
        #expect(streamed.headers["Transfer-Encoding"] == "chunked")
        #expect(String(decoding: streamed.body, as: UTF8.self) == "one two three")
        let big = try await client.send(HTTPRequest(method: "GET", target: "/bytes/1000000"), to: url)
        #expect(big.body == TestRoutes.pattern(1_000_000))
        let head = try await client.send(HTTPRequest(method: "HEAD", target: "/bytes/5000"), to: url)
        #expect(head.status == 200 && head.body.isEmpty && head.headers["Content-Length"] == "5000")
        let noContent = try await client.send(HTTPRequest(method: "GET", target: "/status/204"), to: url)
        #expect(noContent.status == 204 && noContent.body.isEmpty)
        let fresh = try await client.send(HTTPRequest(method: "GET", target: "/etag"), to: url)
        #expect(fresh.status == 200 && fresh.headers["ETag"] == "\"v1\"")
        let unchanged = try await client.send(
            HTTPRequest(method: "GET", target: "/etag", headers: ["If-None-Match": "\"v1\""]),
            to: url
        )
        #expect(unchanged.status == 304 && unchanged.body.isEmpty)
        // Each bodiless answer left the connection in step: the next answer is the right one.
        #expect(Self.text(await Self.get(client, url.with(target: "/hello"))) == "200 hello")
        #expect(client.connectionCount == 1)
        await server.stop()
    }

    @Test func speaksHTTPSWithALPNThroughTheBlockingFacade() async throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let tls = try TLSContext.server(
            certificateFile: files.certificate,
            keyFile: files.key,
            now: TestCertificates.now
        )
        let (server, port) = try Self.startServer(tls: tls)
        let clientTLS = try TLSContext.client(trustingAlso: files.authority, alpn: ["http/1.1"])
        let blocking = BlockingHTTPClient(try Self.client { $0.tls = clientTLS })
        for host in ["localhost", "127.0.0.1"] {
            let answer = try blocking.get(try Self.url("https://\(host):\(port)/hello"))
            #expect(answer.status == 200 && String(decoding: answer.body, as: UTF8.self) == "hello", "\(host)")
        }
        // The system trust store does not know the test CA.
        let untrusted = BlockingHTTPClient(try Self.client())
        #expect(throws: HTTPClientError.self) { try untrusted.get(try Self.url("https://localhost:\(port)/hello")) }
        let untrustedURL = try Self.url("https://localhost:\(port)/hello")
        do throws(HTTPClientError) {
            _ = try untrusted.get(untrustedURL)
        } catch {
            guard case .tlsFailed(let peer, let reason) = error else {
                Issue.record("expected tlsFailed, got \(error)")
                return
            }
            #expect(peer == "localhost:\(port)" && reason.contains("certificate"))
        }
        await server.stop()
    }

    @Test func theBlockingFacadeRefusesToWaitOnItsReactorsQueue() throws {
        let client = try Self.client()
        let blocking = BlockingHTTPClient(client)
        let url = try Self.url("http://127.0.0.1:1/")
        let error: HTTPClientError? = client.reactor.queue.sync { () -> HTTPClientError? in
            do throws(HTTPClientError) {
                _ = try blocking.get(url)
                return nil
            } catch {
                return error
            }
        }
        guard case .cancelled(let why)? = error else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
        #expect(why.contains("reactor's own queue"))
    }

    @Test func shutdownFailsWaitingAndLaterRequests() async throws {
        let (server, port) = try Self.startServer()
        let client = try Self.client()
        let url = try Self.url("http://127.0.0.1:\(port)/silent")
        async let pending = Self.get(client, url)
        try await Task.sleep(for: .milliseconds(100))
        await withCheckedContinuation { continuation in client.shutdown { continuation.resume() } }
        guard case .failure(.cancelled) = await pending else {
            Issue.record("the waiting request was not cancelled")
            return
        }
        guard case .failure(.cancelled) = await Self.get(client, url) else {
            Issue.record("a request after shutdown was not refused")
            return
        }
        await server.stop(graceful: false)
    }

    // MARK: Batches

    static func send(
        _ client: HTTPClient,
        _ batch: [HTTPClient.AddressedRequest]
    ) async -> [Result<ReceivedResponse, HTTPClientError>] {
        // From a Dispatch thread: a batch looks names up on the caller's thread, which must not
        // be one of the few the test runner's async tests share.
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { client.send(batch) { continuation.resume(returning: $0) } }
        }
    }

    @Test func aBatchIsOneWritePerConnectionAndItsOutcomesComeInOrder() async throws {
        // An hour of idle on the server's side too: a loaded CI machine once took over 75 s (its
        // default) between the warm-up and the batch, and found both connections closed.
        let (server, port) = try Self.startServer(idleTimeout: .seconds(3600))
        // No idle timeout: on a loaded machine the warm connections must still be there for the batch.
        let client = try Self.client {
            $0.maximumConnectionsPerOrigin = 2
            $0.idleTimeout = .zero
        }
        let url = try Self.url("http://127.0.0.1:\(port)/")
        // Two connections up and idle first, so the batch meets established sockets.
        let warm = await Self.send(
            client,
            [
                .init(HTTPRequest(method: "GET", target: "/gate/2"), to: url),
                .init(HTTPRequest(method: "GET", target: "/gate/2"), to: url),
            ]
        )
        #expect(warm.map(Self.text) == ["200 gate /gate/2", "200 gate /gate/2"])
        let before = client.statistics
        #expect(before.connectionsOpen == 2)
        let batch = (0..<10).map {
            HTTPClient.AddressedRequest(HTTPRequest(method: "GET", target: "/n/\($0)"), to: url)
        }
        let answers = await Self.send(client, batch)
        #expect(answers.map(Self.text) == (0..<10).map { "200 GET /n/\($0)" })
        // Ten requests, two connections: two writes (sent one by one they were ten).
        #expect(client.statistics.requestWrites - before.requestWrites == 2)
        #expect(client.statistics.connectionsOpened == 2)
        await server.stop()
    }

    @Test func aBatchFailsOnlyItsRequestsThatCannotGoAndAnswersTheRest() async throws {
        let (server, port) = try Self.startServer()
        let refusing = try RefusingPort()
        let client = try Self.client()
        let batch = [
            HTTPClient.AddressedRequest(
                HTTPRequest(method: "GET", target: "/hello"),
                to: try Self.url("http://127.0.0.1:\(port)/")
            ),
            HTTPClient.AddressedRequest(
                HTTPRequest(method: "GET", target: "/"),
                to: try Self.url("http://no-such-host.invalid/")
            ),
            HTTPClient.AddressedRequest(
                HTTPRequest(method: "GET", target: "/"),
                to: try Self.url("http://127.0.0.1:\(refusing.port)/")
            ),
            HTTPClient.AddressedRequest(
                HTTPRequest(method: "POST", target: "/echo", body: Array("ping".utf8)),
                to: try Self.url("http://127.0.0.1:\(port)/")
            ),
        ]
        let answers = await Self.send(client, batch)
        #expect(answers.count == 4)
        #expect(Self.text(answers[0]) == "200 hello")
        guard case .failure(.lookupFailed(let host, _)) = answers[1] else {
            Issue.record("expected lookupFailed, got \(answers[1])")
            return
        }
        #expect(host == "no-such-host.invalid")
        #expect(Self.text(answers[2]).hasSuffix("Connection refused"))
        #expect(Self.text(answers[3]) == "200 ping")
        #expect(await Self.send(client, []).isEmpty)
        withExtendedLifetime(refusing) {}
        await server.stop()
    }

    // MARK: Errors

    @Test func aRefusedConnectAndAnUnknownHostAreClearErrors() async throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        let client = try Self.client()
        let refused = await Self.get(client, try Self.url("http://127.0.0.1:\(port)/"))
        #expect(
            Self.text(refused) == "error: cannot connect to 127.0.0.1:\(port): 127.0.0.1:\(port): Connection refused"
        )
        let both = await Self.get(client, try Self.url("http://localhost:\(port)/"))
        #expect(Self.text(both).hasPrefix("error: cannot connect to localhost:\(port): "))
        #expect(Self.text(both).contains("127.0.0.1:\(port): Connection refused"))
        withExtendedLifetime(refusing) {}
        let unknown = await Self.get(client, try Self.url("http://no-such-host.invalid/"))
        guard case .failure(.lookupFailed(let host, _)) = unknown else {
            Issue.record("expected lookupFailed, got \(unknown)")
            return
        }
        #expect(host == "no-such-host.invalid")
    }

    @Test func theConnectTimeoutCoversTheTLSHandshake() async throws {
        let silent = try SilentPort()
        let client = try Self.client { $0.connectTimeout = .milliseconds(200) }
        let result = await Self.get(client, try Self.url("https://127.0.0.1:\(silent.port)/"))
        #expect(Self.text(result) == "error: connect to 127.0.0.1:\(silent.port) timed out after 200 ms")
        withExtendedLifetime(silent) {}
    }

    @Test func aSilentServerIsAReadTimeout() async throws {
        let (server, port) = try Self.startServer()
        let client = try Self.client { $0.readTimeout = .milliseconds(150) }
        let started = Reactor.now()
        let result = await Self.get(client, try Self.url("http://127.0.0.1:\(port)/silent"))
        #expect(Self.text(result) == "error: no answer from 127.0.0.1:\(port) within 150 ms")
        #expect(Reactor.now() - started >= 150_000_000)
        // The timed-out connection is gone; the next request gets a fresh one.
        #expect(Self.text(await Self.get(client, try Self.url("http://127.0.0.1:\(port)/hello"))) == "200 hello")
        await server.stop(graceful: false)
    }

    // MARK: Against scripted answers

    @Test func aBodyReadUntilCloseEndsWithTheConnection() async throws {
        let scripted = try ScriptedServer { _ in
            .replyAndClose("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it")
        }
        defer { scripted.stop() }
        let client = try Self.client()
        let url = try Self.url("http://127.0.0.1:\(scripted.port)/")
        let first = await Self.get(client, url.with(target: "/a"))
        #expect(Self.text(first) == "200 all of it")
        if case .success(let response) = first { #expect(!response.keepAlive) }
        #expect(Self.text(await Self.get(client, url.with(target: "/b"))) == "200 all of it")
        #expect(scripted.arrivals.withLock { $0.map(\.connection) } == [0, 1])
    }

    @Test func connectionCloseRetiresTheConnectionAndPipelinedGETsGoToANewOne() async throws {
        // Connection 0 waits for all four pipelined requests, then answers only the first, with
        // Connection: close. The three behind it were never answered there: they are sent again
        // on connection 1.
        let scripted = try ScriptedServer { arrival in
            if arrival.connection == 0 {
                return arrival.index == 3
                    ? .replyAndClose("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfirst")
                    : .silence
            }
            return .reply("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nlater")
        }
        defer { scripted.stop() }
        let client = try Self.client {
            $0.maximumConnectionsPerOrigin = 1
            $0.maximumPipelineDepth = 4
        }
        let url = try Self.url("http://127.0.0.1:\(scripted.port)/")
        let answers = await withTaskGroup(of: String.self) { group in
            for i in 0..<4 { group.addTask { Self.text(await Self.get(client, url.with(target: "/p/\(i)"))) } }
            var all: [String] = []
            for await text in group { all.append(text) }
            return all
        }
        #expect(answers.sorted() == ["200 first", "200 later", "200 later", "200 later"])
        #expect(client.statistics.connectionsOpened == 2)
        let perConnection = scripted.arrivals.withLock { $0.map(\.connection) }
        #expect(perConnection.filter { $0 == 0 }.count == 4)
        #expect(perConnection.filter { $0 == 1 }.count == 3)
    }

    @Test func aKeepAliveConnectionClosedUnderAGETIsRetriedButNotUnderAPOST() async throws {
        // Every connection answers one request and then closes without saying so (the
        // keep-alive race a server's idle timeout makes).
        let scripted = try ScriptedServer { arrival in
            arrival.index == 0 ? .reply("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") : .close
        }
        defer { scripted.stop() }
        // No idle timeout: on a loaded machine the client must not close the connection first.
        let client = try Self.client {
            $0.maximumConnectionsPerOrigin = 1
            $0.idleTimeout = .zero
        }
        let url = try Self.url("http://127.0.0.1:\(scripted.port)/")
        #expect(Self.text(await Self.get(client, url.with(target: "/1"))) == "200 ok")
        #expect(Self.text(await Self.get(client, url.with(target: "/2"))) == "200 ok")  // retried on a new connection
        #expect(scripted.requestLines == ["GET /1 HTTP/1.1", "GET /2 HTTP/1.1", "GET /2 HTTP/1.1"])
        let post = await Self.get(client, url.with(target: "/3"), method: "POST")
        #expect(Self.text(post) == "error: 127.0.0.1:\(scripted.port) closed the connection before answering")
        #expect(scripted.requestLines.filter { $0.hasPrefix("POST") }.count == 1)
    }

    @Test func aConnectionDyingUnderAPipelineFailsOnlyTheOldestUnderBehindOldest() async throws {
        // Connection 0 reads three pipelined GETs and closes without a word (a reset fault).
        for policy in [HTTPClient.RetryPolicy.idempotent, .behindOldest] {
            let scripted = try ScriptedServer { arrival in
                if arrival.connection == 0 { return arrival.index == 2 ? .close : .silence }
                return .reply("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
            let client = try Self.client {
                $0.maximumConnectionsPerOrigin = 1
                $0.maximumPipelineDepth = 3
                $0.retry = policy
            }
            let url = try Self.url("http://127.0.0.1:\(scripted.port)/")
            // Written in this order: the first is the oldest.
            let first = Task { await Self.get(client, url.with(target: "/0")) }
            while scripted.arrivals.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
            async let second = Self.get(client, url.with(target: "/1"))
            async let third = Self.get(client, url.with(target: "/2"))
            let answers = [Self.text(await first.value), Self.text(await second), Self.text(await third)]
            if policy == .behindOldest {
                #expect(
                    answers == [
                        "error: 127.0.0.1:\(scripted.port) closed the connection before answering", "200 ok", "200 ok",
                    ]
                )
                #expect(client.statistics.requestsResent == 2)
            } else {
                #expect(answers == ["200 ok", "200 ok", "200 ok"])
                #expect(client.statistics.requestsResent == 3)
            }
            #expect(client.statistics.connectionsOpened == 2)
            scripted.stop()
        }
    }

    @Test func malformedAndTruncatedAnswersAreErrorsNamingThePeer() async throws {
        let scripted = try ScriptedServer { arrival in
            switch arrival.requestLine {
            case "GET /garbage HTTP/1.1": return .replyAndClose("HTTP/1.1 abc Nope\r\n\r\n")
            case "GET /short HTTP/1.1": return .replyAndClose("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
            default: return .replyAndClose("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab")
            }
        }
        defer { scripted.stop() }
        let client = try Self.client()
        let base = try Self.url("http://127.0.0.1:\(scripted.port)/")
        let garbage = await Self.get(client, base.with(target: "/garbage"))
        guard case .failure(.malformedResponse(let peer, let reason)) = garbage else {
            Issue.record("garbage was not a malformed response: \(garbage)")
            return
        }
        #expect(peer == "127.0.0.1:\(scripted.port)" && !reason.isEmpty)
        for target in ["/short", "/chunks"] {
            let result = await Self.get(client, base.with(target: target))
            guard case .failure(.closedEarly(_, let detail)) = result else {
                Issue.record("\(target): expected closedEarly, got \(result)")
                continue
            }
            #expect(detail.hasPrefix("in the middle of a response"), "\(target)")
        }
    }

    @Test func anInterimAnswerIsSkippedForTheFinalOne() async throws {
        let scripted = try ScriptedServer { _ in
            .reply("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody")
        }
        defer { scripted.stop() }
        let client = try Self.client()
        #expect(Self.text(await Self.get(client, try Self.url("http://127.0.0.1:\(scripted.port)/"))) == "200 body")
    }
}
