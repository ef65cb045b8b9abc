import Foundation
import JSON
import TestSupport
import Testing

@testable import ScenarioRunner

/// `adapter-check`: the Swift adapter passes every check, and an adapter that answers
/// `ok: true` to anything fails the checks it breaks, each saying what to fix.
@Suite struct AdapterConformanceTests {
    @Test func theSwiftAdapterPassesEveryCheck() throws {
        let report = try AdapterConformance(command: "'\(ServerProcess.binary.path)' adapter --quiet").run()
        #expect(report.passed, "\(report.text)")
        #expect(report.ran >= 20 && report.failed == 0)
    }

    @Test func anAdapterThatSaysYesToEverythingFailsWithReasons() throws {
        let dir = try TestFiles.folder([
            "sloppy.py": """
            import json, sys
            for line in sys.stdin:
                try:
                    request = json.loads(line)
                except ValueError:
                    request = {}
                rid = request.get("id") if isinstance(request, dict) else None
                if isinstance(request, dict) and request.get("cmd") == "hello":
                    answer = {"id": rid, "ok": True, "name": "sloppy", "version": "1", "capabilities": ["platform:ios", "teleport"]}
                else:
                    answer = {"id": rid, "ok": True}
                print(json.dumps(answer), flush=True)
            """
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try AdapterConformance(
            command: "python3 '\(dir)/sloppy.py'",
            options: .init(commandTimeout: 5, passStderrThrough: false)
        ).run()
        #expect(!report.passed)
        func problem(_ prefix: String) -> String? { report.checks.first { $0.name.hasPrefix(prefix) }?.problem }
        #expect(problem("hello")?.contains(#"/capabilities/1: "teleport" does not match"#) == true, "\(report.text)")
        #expect(problem("a line that is not JSON")?.contains("/error: missing (required)") == true, "\(report.text)")
        #expect(problem("an unknown command")?.contains("answer.error") == true, "\(report.text)")
        #expect(problem("an unknown key in create's config") != nil)
        #expect(problem("create makes a device")?.contains("/screen: missing (required)") == true, "\(report.text)")
        #expect(report.checks.contains { $0.skipped == "hello lists no push" })
        #expect(report.text.contains("✘ a missing field is refused"))
    }

    /// A `hello` with 16,000 capabilities fails its check at once (the schema used to compile a
    /// pattern per item, 7 s outside any deadline), and the other checks still run.
    @Test func aHelloWithThousandsOfCapabilitiesFailsFast() throws {
        let dir = try TestFiles.folder([
            "many.py": """
            import json, sys
            for line in sys.stdin:
                request = json.loads(line)
                if request.get("cmd") == "hello":
                    caps = ["platform:ios"] * 16000
                    answer = {"id": request["id"], "ok": True, "name": "many", "version": "1", "capabilities": caps}
                else:
                    answer = {"id": request.get("id"), "ok": False, "error": "no"}
                print(json.dumps(answer), flush=True)
            """
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let started = Date()
        let report = try AdapterConformance(
            command: "python3 '\(dir)/many.py'",
            options: .init(commandTimeout: 5, passStderrThrough: false)
        ).run()
        let hello = report.checks.first { $0.name.hasPrefix("hello") }?.problem ?? ""
        #expect(hello.contains("16000 capabilities; at most 64"), "\(report.text)")
        #expect(Date().timeIntervalSince(started) < 20)
    }
}
