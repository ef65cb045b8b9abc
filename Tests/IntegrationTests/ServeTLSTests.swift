import Foundation
import TLS
import TestSupport
import Testing

/// `serve --tls-cert/--tls-key` as a person meets it: one port for https and http, and every
/// certificate mistake stopping the start with the file named.
@Suite struct ServeTLSTests {
    @Test func httpsOverH2AndHTTP11AndPlainHTTPShareThePort() throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let server = try ServerProcess.start([
            "serve", "--port", "0", "--quiet", "--tls-cert", files.certificate, "--tls-key", files.key,
        ])
        defer { server.stop() }
        #expect(server.firstLine == "listening on https://127.0.0.1:\(server.port) and http://127.0.0.1:\(server.port)")
        let check = "/v1/projects/demo/release-control?platform=ios&app_version=1.0.0&sdk_version=1.0.0"
        for (flags, version) in [(["--http2"], "2"), (["--http1.1"], "1.1")] {
            let out = try curl(
                flags + [
                    "--cacert", files.authority, "-w", "|%{http_version}|%{http_code}",
                    "https://localhost:\(server.port)\(check)",
                ]
            )
            #expect(out.hasSuffix("|\(version)|200"), "\(flags): \(out)")
        }
        #expect(try curl(["-w", "|%{http_version}", "http://127.0.0.1:\(server.port)/healthz"]) == "ok\n|1.1")
        #expect(
            try curl(["--http2-prior-knowledge", "-w", "|%{http_version}", "http://127.0.0.1:\(server.port)/healthz"])
                == "ok\n|2"
        )
    }

    @Test func certificateMistakesStopTheStartNamingTheFile() throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let otherKey = try files.file("other-key.pem", PrivateKey.generateP256().pem())
        let expired = try CertificateIssuer.server(
            names: ["localhost"],
            signedBy: files.authorityIssued,
            now: TestCertificates.now - 10 * 86_400,
            days: 1
        )
        let expiredCert = try files.file("expired.pem", expired.certificate.pem())
        let expiredKey = try files.file("expired-key.pem", expired.key.pem())
        let cases: [([String], Int32, String)] = [
            (
                ["--tls-cert", files.folder + "/missing.pem", "--tls-key", files.key], 1,
                "missing.pem' cannot be opened"
            ),
            (
                ["--tls-cert", files.certificate, "--tls-key", otherKey], 1,
                "other-key.pem' does not match the certificate"
            ),
            (["--tls-cert", expiredCert, "--tls-key", expiredKey], 1, "expired on"),
            (["--tls-cert", files.key, "--tls-key", files.certificate], 1, "are the certificate and key swapped?"),
            (["--tls-cert", files.certificate], 2, "--tls-cert needs --tls-key"),
        ]
        for (flags, status, message) in cases {
            let result = try ServerProcess.run(["serve", "--port", "0"] + flags)
            #expect(result.status == status, "\(flags)")
            #expect(result.stderr.contains(message), "\(flags): \(result.stderr)")
        }
    }
}
