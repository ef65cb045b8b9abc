import Foundation
import HTTP
import HTTPServer
import TLS
import TestSupport
import Testing

/// One port, told apart by the first byte: TLS (ALPN h2 or http/1.1) and plain HTTP/1.1 and h2c.
@Suite(.serialized) struct TLSServerTests {
    let files: TestCertificates
    let server: HTTPServer
    let port: Int

    init() throws {
        files = try TestCertificates.make()
        let tls = try TLSContext.server(
            certificateFile: files.certificate,
            keyFile: files.key,
            now: TestCertificates.now
        )
        server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, tls: tls), responder: H2TestResponder())
        port = try server.start()
    }

    func finish() async {
        await server.stop()
        files.remove()
    }

    @Test func curlSpeaksH2OverTLSByALPNAndHTTP11WhenAsked() async throws {
        let h2 = try curl([
            "--cacert", files.authority, "-w", "|%{http_version}|%{http_code}", "https://localhost:\(port)/hello",
        ])
        #expect(h2 == "hello HTTP/2 localhost:\(port)|2|200")
        let h1 = try curl([
            "--http1.1", "--cacert", files.authority, "-w", "|%{http_version}", "https://127.0.0.1:\(port)/hello",
        ])
        #expect(h1 == "hello HTTP/1.1 127.0.0.1:\(port)|1.1")
        await finish()
    }

    @Test func plainHTTP11AndH2cStillWorkOnTheSamePort() async throws {
        let plain = try curl(["-w", "|%{http_version}", "http://127.0.0.1:\(port)/hello"])
        #expect(plain == "hello HTTP/1.1 127.0.0.1:\(port)|1.1")
        let h2c = try curl(["--http2-prior-knowledge", "-w", "|%{http_version}", "http://127.0.0.1:\(port)/hello"])
        #expect(h2c == "hello HTTP/2 127.0.0.1:\(port)|2")
        await finish()
    }

    @Test func largeBodiesCrossTLSWholeInBothDirections() async throws {
        let upload = files.folder + "/upload.bin"
        try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 253) }).write(to: URL(fileURLWithPath: upload))
        for version in ["--http1.1", "--http2"] {
            let echoed = try curl([
                version, "--cacert", files.authority, "--data-binary", "@\(upload)",
                "-w", "|%{size_download}", "https://localhost:\(port)/echo",
            ])
            #expect(echoed.hasSuffix("|300000"), "\(version)")
            let huge = try curl([
                version, "--cacert", files.authority, "-o", "/dev/null", "-w", "%{size_download}",
                "https://localhost:\(port)/huge",
            ])
            #expect(huge == String(H2TestResponder.hugeBody.count), "\(version)")
        }
        await finish()
    }

    @Test func aClientThatDistrustsTheCertificateGetsNoAnswerAndTheServerCarriesOn() async throws {
        let refused = try curl(["-w", "%{http_code}", "https://localhost:\(port)/hello"])
        #expect(refused == "000")
        let ok = try curl(["--cacert", files.authority, "https://localhost:\(port)/hello"])
        #expect(ok.hasPrefix("hello"))
        await finish()
    }

    @Test func aStalledHandshakeIsCutOffByTheHeaderReadTimeout() async throws {
        let tls = try TLSContext.server(
            certificateFile: files.certificate,
            keyFile: files.key,
            now: TestCertificates.now
        )
        let quick = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, headerReadTimeout: .milliseconds(200), tls: tls),
            responder: H2TestResponder()
        )
        let quickPort = try quick.start()
        let client = try TestConnection(port: quickPort)
        // The first bytes of a ClientHello record, then silence.
        try client.write([0x16, 0x03, 0x01, 0x01])
        #expect(try client.readsEndOfStream(), "the server should close a stalled handshake")
        await quick.stop()
        await finish()
    }
}
