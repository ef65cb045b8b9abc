import Adapter
import Foundation
import JSON
import LerixSDK
import TestSupport
import Testing

/// The SDK over https: the adapter's own client with a test CA, and the SDK's default
/// URLSession transport (libcurl on Linux, which trusts only the system store, so that test
/// runs the adapter in a private mount namespace where the system bundle includes the test CA).
@Suite(.serialized) struct AdapterTLSTests {
    static let start = "2026-12-01T10:00:00.000Z"

    func startServer(_ files: TestCertificates) throws -> ServerProcess {
        try ServerProcess.start([
            "serve", "--port", "0", "--clock", "manual", "--start-time", Self.start, "--quiet",
            "--tls-cert", files.certificate, "--tls-key", files.key,
        ])
    }

    @Test func theAdaptersOwnClientSpeaksHTTPSWithATrustedCA() throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let server = try startServer(files)
        defer { server.stop() }
        var options = HTTPClientNetwork.Options()
        options.trustedCAFile = files.authority
        let network = HTTPClientNetwork(options: options)
        let answers = Locked<[TransportResult]>([])
        for path in [
            "/healthz", "/v1/projects/demo/release-control?platform=ios&app_version=1.0.0&sdk_version=1.0.0",
            "/healthz",
        ] {
            network.send(
                TransportRequest(method: "GET", url: "https://localhost:\(server.port)\(path)", headers: [], body: [])
            ) { result in
                answers.withLock { $0.append(result) }
            }
        }
        network.runUntilIdle()
        let statuses = answers.withLock { $0 }.map { result -> Int in
            if case .success(let response) = result { return response.status }
            return -1
        }
        #expect(statuses == [200, 200, 200], "\(answers.withLock { $0 })")
        // Without the CA the same server is refused, with the reason.
        let strict = HTTPClientNetwork()
        let refused = Locked<TransportResult?>(nil)
        strict.send(
            TransportRequest(method: "GET", url: "https://localhost:\(server.port)/healthz", headers: [], body: [])
        ) { result in
            refused.withLock { $0 = result }
        }
        strict.runUntilIdle()
        guard case .failure(let error)? = refused.withLock({ $0 }) else {
            Issue.record("an untrusted certificate was accepted")
            return
        }
        #expect("\(error)".contains("certificate was not accepted"), "\(error)")
    }

    @Test func aDeviceRunsItsChecksOverHTTPSThroughTheAdapterCommand() throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let server = try startServer(files)
        defer { server.stop() }
        let adapter = try AdapterProcess(["--tls-ca", files.authority])
        defer { adapter.stop() }
        try runDevice(adapter, base: "https://localhost:\(server.port)")
    }

    static var canUsePrivateMountNamespace: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
            && FileManager.default.fileExists(atPath: "/etc/ssl/certs/ca-certificates.crt")
    }

    @Test(.enabled(if: canUsePrivateMountNamespace, "needs root for a private mount namespace (unshare -m)"))
    func theSDKsURLSessionTransportSpeaksHTTPSToTheServer() throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let bundle = files.folder + "/bundle.pem"
        try
            (FileManager.default.contents(atPath: "/etc/ssl/certs/ca-certificates.crt")! + FileManager.default.contents(
                atPath: files.authority
            )!)
            .write(to: URL(fileURLWithPath: bundle))
        let server = try startServer(files)
        defer { server.stop() }
        let adapter = try AdapterProcess(
            ["--client", "urlsession"],
            launcher: [
                "/usr/bin/unshare", "-m", "/bin/sh", "-c",
                "mount --bind \"$0\" /etc/ssl/certs/ca-certificates.crt && exec \"$@\"", bundle,
                ServerProcess.binary.path,
            ]
        )
        defer { adapter.stop() }
        try runDevice(adapter, base: "https://localhost:\(server.port)")
    }

    /// One device: a required update set over https admin calls, then launch and a minute of checks.
    func runDevice(_ adapter: AdapterProcess, base: String) throws {
        let created = adapter.send(
            "create",
            [
                ("device", "a"), ("now", .string(Self.start)),
                (
                    "config",
                    [
                        "base_url": .string(base), "project": "demo", "platform": "ios", "app_version": "2.3.0",
                        "build": "7",
                    ]
                ),
            ]
        )
        #expect(created["ok"] == true, "\(created.serializedString)")
        adapter.send("launch", [("device", "a")])
        let state = adapter.send("state", [("device", "a")])
        let device = state["state"] ?? state
        #expect(device["checks"]?.intValue ?? 0 >= 1, "\(state.serializedString)")
        #expect(device["last_success"] != nil && device["last_success"] != .null, "\(state.serializedString)")
        #expect(device["failed_checks"] == 0, "\(state.serializedString)")
    }
}
