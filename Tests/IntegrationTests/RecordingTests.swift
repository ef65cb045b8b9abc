import Foundation
import HTTP
import JSON
import TestSupport
import Testing
import YAML

/// `serve --record FILE`: a manual session, as curl would drive it, becomes a scenario file
/// that replays green, and that fails at the right step when one rule in it is changed.
@Suite struct RecordingTests {
    /// One session: a check, a block, a check, a maintenance window and a 503 fault, lift-all,
    /// a second kind of device, and a check after ten minutes.
    func recordSession(to file: String, stopWith stop: (ServerProcess, TestHTTPClient) throws -> Void) throws {
        let server = try ServerProcess.start([
            "serve", "--clock", "manual", "--start-time", "2026-12-06T04:00:00.000Z",
            "--port", "0", "--quiet", "--record", file,
        ])
        defer { server.stop() }
        let client = try TestHTTPClient(port: server.port)
        func call(_ method: String, _ target: String, _ body: String = "") throws -> HTTPResponse {
            try client.send(HTTPRequest(method: method, target: target, body: Array(body.utf8)))
        }
        let check = "/v1/projects/demo/release-control?platform=ios&version=2.3.0&sdk=swift&sdk_version=1.5.0"
        #expect(try call("GET", check).status == 200)
        #expect(
            try call("POST", "/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.4.0"}"#).status
                == 201
        )
        _ = try call("POST", "/admin/clock", #"{"advance_seconds": 60}"#)
        _ = try call("GET", check)
        _ = try call(
            "POST",
            "/admin/projects/demo/rules",
            #"{"type": "maintenance", "starts_at": "2026-12-06T06:00:00.000Z", "ends_at": "2026-12-06T07:00:00.000Z"}"#
        )
        _ = try call("POST", "/admin/projects/demo/faults", #"{"kind": "status", "status": 503, "count": 1}"#)
        _ = try call("POST", "/admin/clock", #"{"advance_seconds": 90}"#)
        #expect(try call("GET", check).status == 503)
        _ = try call("GET", check)
        _ = try call("POST", "/admin/projects/demo/lift-all")
        _ = try call("GET", check + "&build=7")
        _ = try call("POST", "/admin/clock", #"{"advance_seconds": 600}"#)
        _ = try call("GET", check)
        let status = try call("GET", "/admin/recording")
        #expect(status.status == 200)
        let json = try JSON.parse(status.body)
        #expect(json["recording"] == true && json["devices"] == 2, "\(json)")
        try stop(server, client)
    }

    @Test func aRecordedSessionReplaysGreenAndFailsAtTheStepARuleChangeBreaks() throws {
        let dir = try TestFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/session.yaml"
        try recordSession(to: file) { server, _ in #expect(server.stop() == 0) }
        let yaml = try String(contentsOfFile: file, encoding: .utf8)
        for line in [
            "  d1: {platform: ios, app_version: \"2.3.0\", sdk: swift, sdk_version: \"1.5.0\"}",
            "  - create_rule: {name: r1, type: required_update, below: \"2.4.0\"}",
            "  - create_rule: {name: r2, type: maintenance, starts_at: \"+2h\", ends_at: \"+3h\"}",
            "  - fault: {kind: status, status: 503, count: 1}", "  - lift_all", "  - at: 12m30s",
            "  - expect: {device: d1, required_update: {rule: r1}, optional_update: null, maintenance: 1}",
        ] {
            #expect(yaml.contains(line + "\n"), "missing \(line) in\n\(yaml)")
        }
        let replay = try ServerProcess.run(["scenarios", file])
        #expect(replay.status == 0, "\(replay.stdout)")
        #expect(replay.stdout.contains("1 passed, 0 failed"))
        // One rule changed: the first answer it decided no longer holds, and the failure says where.
        try yaml.replacingOccurrences(of: "below: \"2.4.0\"", with: "below: \"2.3.0\"").write(
            toFile: dir + "/changed.yaml",
            atomically: true,
            encoding: .utf8
        )
        let changed = try ServerProcess.run(["scenarios", dir + "/changed.yaml"])
        #expect(changed.status == 1)
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
        let stepLine = (lines.firstIndex { $0.contains("expect: {device: d1, required_update: {rule: r1}") } ?? 0) + 1
        #expect(changed.stdout.contains("changed.yaml:\(stepLine):5"), "\(changed.stdout)")
        #expect(
            changed.stdout.contains(#"d1: required_update: expected {"rule":"r1"}, seen null"#),
            "\(changed.stdout)"
        )
    }

    /// Every string round-trips (DEL, C1 controls, NEL, U+FFFE/FFFF made the file unreadable or
    /// changed), device classes are told apart field by field (`1`,`2|3` and `1|2`,`3` were one),
    /// a device that sent no `sdk` replays sending none (not `swift`), and a fault armed after an
    /// earlier one was used up is recorded.
    @Test func aRecordingKeepsEveryStringEveryDeviceClassAndEveryFault() throws {
        let dir = try TestFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/session.yaml"
        let message = "a\u{7F}b\u{80}c\u{85}d\u{9F}e\u{FFFE}f\u{FFFF}g\u{2028}h\u{FEFF}i\"j\\k\n"
        do {
            let server = try ServerProcess.start([
                "serve", "--clock", "manual", "--start-time", "2026-12-06T04:00:00.000Z",
                "--port", "0", "--quiet", "--record", file,
            ])
            defer { server.stop() }
            let client = try TestHTTPClient(port: server.port)
            func call(_ method: String, _ target: String, _ body: String = "") throws -> HTTPResponse {
                try client.send(HTTPRequest(method: method, target: target, body: Array(body.utf8)))
            }
            let rule = JSON.object([
                ("type", "required_update"), ("below", "9.0.0"), ("message", .string(message)),
            ])
            #expect(try call("POST", "/admin/projects/demo/rules", rule.serializedString).status == 201)
            let base = "/v1/projects/demo/release-control?platform=ios"
            #expect(try call("GET", base + "&version=1&build=2%7C3&sdk=swift&sdk_version=1.5.0").status == 200)
            #expect(try call("GET", base + "&version=1%7C2&build=3&sdk=swift&sdk_version=1.5.0").status == 200)
            #expect(try call("GET", base + "&version=1.0.0").status == 200)
            _ = try call("POST", "/admin/projects/demo/faults", #"{"kind": "status", "status": 503, "count": 1}"#)
            #expect(try call("GET", base + "&version=1.0.0").status == 503)
            _ = try call("POST", "/admin/projects/demo/faults", #"{"kind": "status", "status": 500, "count": 1}"#)
            #expect(try call("GET", base + "&version=1.0.0").status == 500)
            #expect(server.stop() == 0)
        }
        let yaml = try String(contentsOfFile: file, encoding: .utf8)
        let document = try YAML.parse(Array(yaml.utf8))
        let created = document.json["steps"]?.arrayValue?.compactMap { $0["create_rule"] }.first
        #expect(created?["message"]?.stringValue == message, "\(yaml)")
        let devices = document.json["devices"]?.objectValue
        #expect(devices?.count == 3, "\(yaml)")
        #expect(devices?["d3"]?["sdk"] == .null, "\(yaml)")
        #expect(yaml.contains("  - fault: {kind: status, status: 503, count: 1}\n"), "\(yaml)")
        #expect(yaml.contains("  - fault: {kind: status, status: 500, count: 1}\n"), "\(yaml)")
        let replay = try ServerProcess.run(["scenarios", file])
        #expect(replay.status == 0, "\(replay.stdout)")
    }

    @Test func theAdminAPIStartsAndStopsARecordingAndRefusesASecond() throws {
        let server = try ServerProcess.start(["serve", "--clock", "manual", "--port", "0", "--quiet"])
        defer { server.stop() }
        let client = try TestHTTPClient(port: server.port)
        func call(_ method: String, _ target: String, _ body: String = "") throws -> HTTPResponse {
            try client.send(HTTPRequest(method: method, target: target, body: Array(body.utf8)))
        }
        #expect(try JSON.parse(try call("GET", "/admin/recording").body)["recording"] == false)
        #expect(try call("POST", "/admin/recording", #"{"projekt": "demo"}"#).status == 422)
        #expect(try call("POST", "/admin/recording", #"{"project": "nope"}"#).status == 404)
        #expect(try call("POST", "/admin/recording").status == 201)
        #expect(try call("POST", "/admin/recording").status == 409)
        _ = try call("GET", "/v1/projects/demo/release-control?platform=android&version=1.0.0")
        let stopped = try JSON.parse(try call("DELETE", "/admin/recording").body)
        #expect(stopped["recording"] == false)
        let scenario = stopped["scenario"]?.stringValue ?? ""
        #expect(
            // It sent no sdk: null, so the replay sends none either (left out, it would send kotlin).
            scenario.contains("  d1: {platform: android, app_version: \"1.0.0\", sdk: null, sdk_version: null}\n"),
            "\(scenario)"
        )
        #expect(scenario.contains("  - launch: d1\n  - background: d1\n"), "\(scenario)")
        #expect(
            try JSON.parse(try call("DELETE", "/admin/recording").body)["scenario"] == .null,
            "nothing was recording"
        )
    }
}
