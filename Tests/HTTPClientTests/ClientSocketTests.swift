import Dispatch
import Glibc
import HTTP
import HTTPClient
import HTTPServer
import Reactor
import Sockets
import TLS
import TestSupport
import Testing

/// Answers "hello <target>" to everything; `/silent` never answers.
struct EchoTargetResponder: Responder {
    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        if request.target == "/silent" { return }
        reply(.response(HTTPResponse(status: 200, body: Array("hello \(request.target)".utf8))))
    }
}

/// Raw bytes over ``ClientSocket`` on a private reactor against the real server: connect,
/// the Transport seam (plaintext and TLS), address fallback, and the connect deadline.
@Suite struct ClientSocketTests {
    static func makeReactor() throws -> Reactor {
        let reactor = try Reactor(label: "test.client", sweepInterval: 5_000_000)
        reactor.start()
        return reactor
    }

    static let closeRequest = "GET /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"

    @Test func sendsAndReceivesOverPlainTCPOnIPv4AndIPv6Loopback() async throws {
        for host in ["127.0.0.1", "::1"] {
            let server = HTTPServer(configuration: .init(host: host, port: 0), responder: EchoTargetResponder())
            let port = try server.start()
            let reactor = try Self.makeReactor()
            let recorder = SocketRecorder(request: Self.closeRequest)
            let socket = ClientSocket(
                reactor: reactor,
                peer: "\(host):\(port)",
                addresses: try SocketAddress.lookup(host: host, port: port),
                security: .plaintext,
                connectTimeout: 2_000_000_000,
                delegate: recorder
            )
            socket.start()
            #expect(recorder.waitForClose(), "\(host)")
            let record = recorder.record.withLock { $0 }
            #expect(record.established && record.peerClosed && record.error == nil && record.onQueue, "\(host)")
            #expect(recorder.text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(host)")
            #expect(recorder.text.hasSuffix("hello /x"), "\(host)")
            #expect(socket.phase == .closed)
            await server.stop()
        }
    }

    @Test func triesTheNextAddressWhenOneRefuses() async throws {
        // Listening on ::1 only; 127.0.0.1 at that port is held bound and refuses. Then ::1 answers.
        var attempt: (HTTPServer, Int, RefusingPort)?
        for _ in 0..<20 where attempt == nil {
            let server = HTTPServer(configuration: .init(host: "::1", port: 0), responder: EchoTargetResponder())
            let port = try server.start()
            if let refusing = try? RefusingPort(refusingIPv4At: port) {
                attempt = (server, port, refusing)
            } else {
                await server.stop()
            }
        }
        guard let (server, port, refusing) = attempt else {
            Issue.record("no port free on 127.0.0.1 beside the ::1 server")
            return
        }
        let addresses = [
            try SocketAddress.resolve(host: "127.0.0.1", port: port),
            try SocketAddress.resolve(host: "::1", port: port),
        ]
        let recorder = SocketRecorder(request: Self.closeRequest)
        let socket = ClientSocket(
            reactor: try Self.makeReactor(),
            peer: "localhost:\(port)",
            addresses: addresses,
            security: .plaintext,
            connectTimeout: 2_000_000_000,
            delegate: recorder
        )
        socket.start()
        #expect(recorder.waitForClose())
        #expect(recorder.text.hasSuffix("hello /x"))
        #expect(socket.address?.isIPv6 == true)
        withExtendedLifetime(refusing) {}
        await server.stop()
    }

    @Test func aRefusedConnectNamesEveryAddressTried() throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        let addresses = [
            try SocketAddress.resolve(host: "127.0.0.1", port: port),
            try SocketAddress.resolve(host: "::1", port: port),
        ]
        let recorder = SocketRecorder(request: Self.closeRequest)
        ClientSocket(
            reactor: try Self.makeReactor(),
            peer: "localhost:\(port)",
            addresses: addresses,
            security: .plaintext,
            connectTimeout: 2_000_000_000,
            delegate: recorder
        ).start()
        #expect(recorder.waitForClose())
        let error = recorder.record.withLock { $0.error }
        guard case .connectFailed(let peer, let reason)? = error else {
            Issue.record("expected connectFailed, got \(String(describing: error))")
            return
        }
        #expect(peer == "localhost:\(port)")
        #expect(reason.contains("127.0.0.1:\(port): Connection refused"))
        #expect(reason.contains("[::1]:\(port): Connection refused"))
        #expect(recorder.record.withLock { !$0.established })
        withExtendedLifetime(refusing) {}
    }

    @Test func speaksTLSThroughTheTransportSeamWithALPN() async throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let serverTLS = try TLSContext.server(
            certificateFile: files.certificate,
            keyFile: files.key,
            now: TestCertificates.now
        )
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, tls: serverTLS),
            responder: EchoTargetResponder()
        )
        let port = try server.start()
        let client = try TLSContext.client(trustingAlso: files.authority, alpn: ["http/1.1"])
        let recorder = SocketRecorder(request: Self.closeRequest)
        ClientSocket(
            reactor: try Self.makeReactor(),
            peer: "localhost:\(port)",
            addresses: try SocketAddress.lookup(host: "127.0.0.1", port: port),
            security: .tls(client, peerName: "localhost"),
            connectTimeout: 5_000_000_000,
            delegate: recorder
        ).start()
        #expect(recorder.waitForClose())
        let record = recorder.record.withLock { $0 }
        #expect(record.error == nil)
        #expect(record.negotiatedProtocol == "http/1.1")
        #expect(recorder.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(recorder.text.hasSuffix("hello /x"))
        await server.stop()
    }

    @Test func anUntrustedCertificateIsATLSFailure() async throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let serverTLS = try TLSContext.server(
            certificateFile: files.certificate,
            keyFile: files.key,
            now: TestCertificates.now
        )
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, tls: serverTLS),
            responder: EchoTargetResponder()
        )
        let port = try server.start()
        let recorder = SocketRecorder(request: Self.closeRequest)
        ClientSocket(
            reactor: try Self.makeReactor(),
            peer: "localhost:\(port)",
            addresses: try SocketAddress.lookup(host: "127.0.0.1", port: port),
            security: .tls(try TLSContext.client(), peerName: "localhost"),
            connectTimeout: 5_000_000_000,
            delegate: recorder
        ).start()
        #expect(recorder.waitForClose())
        guard case .tlsFailed(let peer, let reason)? = recorder.record.withLock({ $0.error }) else {
            Issue.record("expected tlsFailed, got \(String(describing: recorder.record.withLock { $0.error }))")
            return
        }
        #expect(peer == "localhost:\(port)")
        #expect(reason.contains("certificate"))
        await server.stop()
    }

    @Test func theConnectDeadlineCoversTheTLSHandshake() throws {
        // A listener that never accepts: TCP connects (the kernel's backlog), TLS never answers.
        let listener = try TCPListener.open(host: "127.0.0.1", port: 0)
        defer { Posix.close(listener.fd) }
        let recorder = SocketRecorder(request: Self.closeRequest)
        let started = Reactor.now()
        ClientSocket(
            reactor: try Self.makeReactor(),
            peer: "127.0.0.1:\(listener.port)",
            addresses: try SocketAddress.lookup(host: "127.0.0.1", port: listener.port),
            security: .tls(try TLSContext.client(), peerName: "127.0.0.1"),
            connectTimeout: 200_000_000,
            delegate: recorder
        ).start()
        #expect(recorder.waitForClose())
        #expect(
            recorder.record.withLock { $0.error }
                == .connectTimedOut(peer: "127.0.0.1:\(listener.port)", milliseconds: 200)
        )
        #expect(Reactor.now() - started >= 200_000_000)
    }

    @Test func theDelegatesDeadlineRunsOnceEstablished() async throws {
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: EchoTargetResponder())
        let port = try server.start()
        let recorder = SocketRecorder(request: "GET /silent HTTP/1.1\r\nHost: t\r\n\r\n", readTimeout: 100_000_000)
        ClientSocket(
            reactor: try Self.makeReactor(),
            peer: "127.0.0.1:\(port)",
            addresses: try SocketAddress.lookup(host: "127.0.0.1", port: port),
            security: .plaintext,
            connectTimeout: 2_000_000_000,
            delegate: recorder
        ).start()
        #expect(recorder.waitForClose())
        let record = recorder.record.withLock { $0 }
        #expect(record.established && record.error == nil && record.received.isEmpty)
        await server.stop(graceful: false)  // the /silent request never gets its answer
    }
}
