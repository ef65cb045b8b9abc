import Foundation
import TestSupport
import Testing

/// The command line as a person meets it: flags, mistakes, and what it prints.
@Suite struct ServeCommandLineTests {
    @Test func portZeroPrintsTheListeningAddressFirst() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        defer { server.stop() }
        #expect(server.firstLine == "listening on http://127.0.0.1:\(server.port)")
        #expect(server.port > 0)
    }

    @Test func anUnknownFlagIsRefusedWithASuggestion() throws {
        let result = try ServerProcess.run(["serve", "--prot", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option --prot (did you mean --port?)"))
    }

    @Test func aBadConfigStopsTheStartNamingTheFileTheFieldAndWhy() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lerix-bad-config-\(getpid()).json")
            .path
        try Data(
            #"{"projects": [{"key": "demo", "rules": [{"type": "required_update", "below": "not a version"}]}]}"#.utf8
        )
        .write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try ServerProcess.run(["serve", "--port", "0", "--config", path])
        #expect(result.status != 0)
        #expect(result.stderr.contains(path))
        #expect(result.stderr.contains("/projects/0/rules/0/below"))
    }

    @Test func aMissingConfigFileIsNamed() throws {
        let result = try ServerProcess.run(["serve", "--port", "0", "--config", "/nonexistent/lerix.json"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("/nonexistent/lerix.json"))
    }

    @Test func aBadStartTimeIsRefused() throws {
        let result = try ServerProcess.run(["serve", "--clock", "manual", "--start-time", "tomorrow"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--start-time"))
    }

    @Test func theClockEndpointRefusesToMoveTheSystemClock() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        defer { server.stop() }
        let client = try TestHTTPClient(port: server.port)
        let response = try client.send(
            .init(method: "POST", target: "/admin/clock", body: Array(#"{"advance_seconds": 5}"#.utf8))
        )
        #expect(response.status == 409)
    }

    @Test func anAdminTokenGuardsAdminButNotTheCheck() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet", "--admin-token", "s3cret"])
        defer { server.stop() }
        let client = try TestHTTPClient(port: server.port)
        #expect(try client.send(.init(method: "GET", target: "/admin/projects")).status == 401)
        #expect(
            try client.send(
                .init(method: "GET", target: "/admin/projects", headers: ["Authorization": "Bearer s3cret"])
            ).status == 200
        )
        #expect(
            try client.send(.init(method: "GET", target: "/v1/projects/demo/release-control?platform=web")).status
                == 200
        )
    }

    @Test func requestLogLinesGoToStderrUnlessQuiet() throws {
        let server = try ServerProcess.start(["serve", "--port", "0"])
        let client = try TestHTTPClient(port: server.port)
        #expect(try client.send(.init(method: "GET", target: "/healthz")).status == 200)
        server.stop()
        let log = server.standardError()
        #expect(log.contains("GET /healthz 200"))
    }
}

@Suite struct ServeStateFileTests {
    @Test func sigtermFoldsTheWriteAheadLogIntoTheStateFileAndARestartFindsTheRule() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lerix-state-\(getpid()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let first = try ServerProcess.start(["serve", "--port", "0", "--quiet", "--state", path])
        let client = try TestHTTPClient(port: first.port)
        let created = try client.send(
            .init(
                method: "POST",
                target: "/admin/projects/demo/rules",
                body: Array(#"{"type": "optional_update", "below": "3.0.0"}"#.utf8)
            )
        )
        #expect(created.status == 201)
        #expect(first.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        let second = try ServerProcess.start(["serve", "--port", "0", "--quiet", "--state", path])
        defer { second.stop() }
        let rules = try TestHTTPClient(port: second.port).send(
            .init(method: "GET", target: "/admin/projects/demo/rules")
        )
        #expect(String(decoding: rules.body, as: UTF8.self).contains("\"optional_update\""))
    }
}
