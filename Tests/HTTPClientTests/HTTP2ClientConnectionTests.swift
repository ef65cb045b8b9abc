import Dispatch
import HTTP
import HTTPClient
import HTTPServer
import Reactor
import Sockets
import Synchronization
import TestSupport
import Testing

/// Collects one ``HTTP2ClientConnection``'s events (they arrive on its reactor's queue) and
/// sends `requests` once the peer's SETTINGS are in.
final class HTTP2EventLog: @unchecked Sendable {
    enum Entry: Equatable {
        case ready(Int)
        case response(Int, Int, String)
        case streamFailed(Int, String)
        case goingAway
        case closed(String, [Int])
    }

    let entries = Mutex<[Entry]>([])
    let closed = DispatchSemaphore(value: 0)
    let answered = DispatchSemaphore(value: 0)
    /// Confined to the reactor's queue (set once, before start).
    var connection: HTTP2ClientConnection?
    let requests: [HTTPRequest]

    init(requests: [HTTPRequest]) { self.requests = requests }

    func record(_ event: HTTP2ClientConnection.Event) {
        switch event {
        case .ready(let streams):
            entries.withLock { $0.append(.ready(streams)) }
            for (id, request) in requests.enumerated() {
                if let problem = connection?.send(request, requestID: id) {
                    entries.withLock { $0.append(.streamFailed(id, problem)) }
                }
            }
            connection?.flush()
        case .settingsChanged:
            break
        case .response(let id, let response):
            entries.withLock {
                $0.append(.response(id, response.status, String(decoding: response.body, as: UTF8.self)))
            }
            answered.signal()
        case .streamFailed(let id, let reason):
            entries.withLock { $0.append(.streamFailed(id, reason)) }
            answered.signal()
        case .goingAway:
            entries.withLock { $0.append(.goingAway) }
        case .closed(let reason, let unfinished):
            entries.withLock { $0.append(.closed(reason, unfinished.sorted())) }
            closed.signal()
        }
    }

    /// Opens a connection to `port` on a private reactor (5 ms sweeps).
    static func connect(
        port: Int,
        requests: [HTTPRequest],
        connectTimeout: Duration? = .seconds(2),
        requestTimeout: Duration? = .seconds(2)
    ) throws -> (HTTP2EventLog, HTTP2ClientConnection, String) {
        let reactor = try Reactor(label: "test.h2", sweepInterval: 5_000_000)
        reactor.start()
        let log = HTTP2EventLog(requests: requests)
        let label = "http://127.0.0.1:\(port)"
        let connection = HTTP2ClientConnection(
            reactor: reactor,
            label: label,
            authority: "127.0.0.1:\(port)",
            addresses: try SocketAddress.lookup(host: "127.0.0.1", port: port),
            security: .plaintext,
            configuration: .init(connectTimeout: connectTimeout, requestTimeout: requestTimeout)
        ) { log.record($0) }
        log.connection = connection
        reactor.queue.async { connection.start() }
        return (log, connection, label)
    }
}

/// The HTTP/2 client connection Push's gateway client sits on, against the real server (h2c
/// with prior knowledge) and against peers that misbehave.
@Suite struct HTTP2ClientConnectionTests {
    static func post(_ target: String) -> HTTPRequest {
        HTTPRequest(method: "POST", target: target, version: .http2, body: Array("x".utf8))
    }

    @Test func answersEachRequestOnItsOwnStreamAfterTheServersSettings() async throws {
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: EchoTargetResponder())
        let port = try server.start()
        let (log, connection, label) = try HTTP2EventLog.connect(
            port: port,
            requests: [Self.post("/a"), Self.post("/b"), Self.post("/silent")],
            requestTimeout: .milliseconds(300)
        )
        for _ in 0..<3 { #expect(log.answered.wait(timeout: .now() + 10) == .success) }
        let entries = log.entries.withLock { $0 }
        guard case .ready(let streams)? = entries.first else {
            Issue.record("\(entries)")
            return
        }
        #expect(streams >= 100, "the server's SETTINGS_MAX_CONCURRENT_STREAMS")
        #expect(entries.contains(.response(0, 200, "hello /a")))
        #expect(entries.contains(.response(1, 200, "hello /b")))
        // Answers arrived after /silent was sent, so the connection is alive: only that stream fails.
        #expect(entries.contains(.streamFailed(2, "no answer from \(label) within 300 ms")), "\(entries)")
        connection.reactor.queue.sync {
            #expect(connection.maxOpenStreams == 3)
            #expect(connection.openStreamCount == 0)
            connection.close(reason: "test over")
        }
        #expect(log.closed.wait(timeout: .now() + 10) == .success)
        #expect(log.entries.withLock { $0.last } == .closed("test over", []))
        await server.stop()
    }

    /// Without limits (a peer in this process, the scenario runner's gateway stand-in) a peer
    /// that speaks late is waited for: its SETTINGS and its answer come 0.4 s after the 150 ms
    /// that fail the same connection with a connect timeout.
    @Test func withoutTimeLimitsAPeerThatSpeaksLateIsWaitedFor() async throws {
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: EchoTargetResponder())
        let relay = try LaggingRelay(to: try server.start(), lag: .milliseconds(400))
        defer { relay.stop() }
        let (log, connection, _) = try HTTP2EventLog.connect(
            port: relay.port,
            requests: [Self.post("/a")],
            connectTimeout: nil,
            requestTimeout: nil
        )
        #expect(log.answered.wait(timeout: .now() + 60) == .success)
        #expect(log.entries.withLock { $0.contains(.response(0, 200, "hello /a")) }, "\(log.entries.withLock { $0 })")
        connection.reactor.queue.sync { connection.close(reason: "test over") }
        let (limited, _, label) = try HTTP2EventLog.connect(
            port: relay.port,
            requests: [Self.post("/a")],
            connectTimeout: .milliseconds(150)
        )
        #expect(limited.closed.wait(timeout: .now() + 60) == .success)
        #expect(
            limited.entries.withLock { $0 } == [
                .closed("connect to \(label) timed out after 150 ms: TCP connected but no HTTP/2 SETTINGS arrived", [])
            ]
        )
        await server.stop()
    }

    @Test func aPeerThatAcceptsButNeverSpeaksHTTP2TimesOutConnecting() throws {
        let silent = try ScriptedServer { _ in .silence }
        defer { silent.stop() }
        let (log, _, label) = try HTTP2EventLog.connect(
            port: silent.port,
            requests: [Self.post("/a")],
            connectTimeout: .milliseconds(150)
        )
        #expect(log.closed.wait(timeout: .now() + 10) == .success)
        #expect(
            log.entries.withLock { $0 } == [
                .closed("connect to \(label) timed out after 150 ms: TCP connected but no HTTP/2 SETTINGS arrived", [])
            ]
        )
    }

    @Test func aRefusedConnectNamesTheURLAndTheReason() throws {
        let refusing = try RefusingPort()  // bound, never listening: no parallel test can take it
        let (log, _, label) = try HTTP2EventLog.connect(port: refusing.port, requests: [])
        #expect(log.closed.wait(timeout: .now() + 10) == .success)
        #expect(log.entries.withLock { $0 } == [.closed("connect to \(label) failed: Connection refused", [])])
        withExtendedLifetime(refusing) {}
    }

    @Test func aPeerClosingUnderOpenStreamsListsThemAsUnfinished() throws {
        // The scripted server closes as soon as the preface (which ends like a request head) is in.
        let closing = try ScriptedServer { _ in .replyAndClose("\u{0}\u{0}\u{0}\u{4}\u{0}\u{0}\u{0}\u{0}\u{0}") }
        defer { closing.stop() }
        let (log, _, label) = try HTTP2EventLog.connect(
            port: closing.port,
            requests: [Self.post("/a"), Self.post("/b")]
        )
        #expect(log.closed.wait(timeout: .now() + 10) == .success)
        let entries = log.entries.withLock { $0 }
        guard case .ready? = entries.first else {
            Issue.record("the empty SETTINGS frame makes the connection ready: \(entries)")
            return
        }
        guard case .closed(let reason, let unfinished)? = entries.last else {
            Issue.record("\(entries)")
            return
        }
        #expect(reason.contains(label), "\(reason)")  // closed, or reset: the peer had unread bytes
        #expect(unfinished == [0, 1])
    }
}
