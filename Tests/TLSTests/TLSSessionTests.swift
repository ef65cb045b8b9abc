import TLS
import TestSupport
import Testing

/// A client and a server session wired to each other in memory: the pure state, no sockets.
final class SessionPair {
    let client: TLSSession
    let server: TLSSession
    var fromServer: [UInt8] = []
    var fromClient: [UInt8] = []
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 << 10, alignment: 16)

    init(client: TLSSession, server: TLSSession) {
        self.client = client
        self.server = server
    }

    deinit { buffer.deallocate() }

    /// Moves ciphertext back and forth until neither side has more; returns the outcomes seen last.
    func pump(maxRounds: Int = 20) -> (client: TLSSession.ReadOutcome, server: TLSSession.ReadOutcome) {
        var outcomes: (TLSSession.ReadOutcome, TLSSession.ReadOutcome) = (.needMore, .needMore)
        for _ in 0..<maxRounds {
            var wire: [UInt8] = []
            client.drainCiphertext(into: &wire)
            let clientSent = !wire.isEmpty
            wire.withUnsafeBytes { server.receive($0) }
            outcomes.1 = server.readPlaintext(into: buffer) { fromClient.append(contentsOf: $0) }
            wire = []
            server.drainCiphertext(into: &wire)
            let serverSent = !wire.isEmpty
            wire.withUnsafeBytes { client.receive($0) }
            outcomes.0 = client.readPlaintext(into: buffer) { fromServer.append(contentsOf: $0) }
            if !clientSent && !serverSent && !client.hasCiphertext && !server.hasCiphertext { break }
        }
        return outcomes
    }
}

@Suite struct TLSSessionTests {
    let files: TestCertificates
    init() throws { files = try TestCertificates.make() }

    func pair(alpn: [String], peerName: String = "localhost", ca: String? = nil) throws -> SessionPair {
        let server = try TLSContext.server(
            certificateFile: files.certificate,
            keyFile: files.key,
            now: TestCertificates.now
        )
        let client = try TLSContext.client(trustingAlso: ca ?? files.authority, alpn: alpn)
        let pair = SessionPair(client: try client.makeSession(peerName: peerName), server: try server.makeSession())
        pair.client.start()
        return pair
    }

    @Test func handshakeInMemoryThenBytesFlowBothWaysWithALPNPreferringH2() throws {
        defer { files.remove() }
        let p = try pair(alpn: ["http/1.1", "h2"])
        // Plaintext given before the handshake finished is held, then sent.
        p.client.send(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        let outcome = p.pump()
        #expect(outcome.client == .needMore && outcome.server == .needMore)
        #expect(p.client.isHandshakeComplete && p.server.isHandshakeComplete)
        #expect(p.server.negotiatedProtocol == "h2")
        #expect(p.client.negotiatedProtocol == "h2")
        #expect(String(decoding: p.fromClient, as: UTF8.self) == "GET / HTTP/1.1\r\n\r\n")
        let big = [UInt8](repeating: 0x41, count: 100_000)
        p.server.send(big)
        _ = p.pump()
        #expect(p.fromServer == big)
    }

    @Test func aClientOfferingOnlyHTTP11GetsIt() throws {
        let p = try pair(alpn: ["http/1.1"])
        _ = p.pump()
        #expect(p.server.negotiatedProtocol == "http/1.1")
        files.remove()
    }

    @Test func aServerNotSignedByATrustedCAIsRefusedWithTheReason() throws {
        let other = try TestCertificates.make()
        defer {
            other.remove()
            files.remove()
        }
        let p = try pair(alpn: ["h2"], ca: other.authority)
        let outcome = p.pump()
        guard case .failed(let reason) = outcome.client else {
            Issue.record("expected a failure, got \(outcome.client)")
            return
        }
        #expect(reason.contains("certificate was not accepted"), "\(reason)")
        #expect(reason.contains("local issuer"), "\(reason)")
    }

    @Test func aCertificateForAnotherNameIsRefused() throws {
        defer { files.remove() }
        let p = try pair(alpn: ["h2"], peerName: "push.example.org")
        guard case .failed(let reason) = p.pump().client else {
            Issue.record("a certificate for localhost was accepted for push.example.org")
            return
        }
        #expect(reason.contains("hostname mismatch"), "\(reason)")
        let q = try pair(alpn: ["h2"], peerName: "::1")
        #expect(q.pump().client == .needMore)
        #expect(q.client.isHandshakeComplete)
    }

    @Test func closeNotifyEndsTheStream() throws {
        defer { files.remove() }
        let p = try pair(alpn: ["h2"])
        _ = p.pump()
        p.client.close()
        #expect(p.pump().server == .closed)
    }

    @Test func garbageInsteadOfAHandshakeFailsTheServerSession() throws {
        defer { files.remove() }
        let server = try TLSContext.server(
            certificateFile: files.certificate,
            keyFile: files.key,
            now: TestCertificates.now
        )
        let session = try server.makeSession()
        let junk: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5]
        junk.withUnsafeBytes { session.receive($0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        guard case .failed = session.readPlaintext(into: buffer, deliver: { _ in }) else {
            Issue.record("garbage was accepted as a handshake")
            return
        }
    }
}
