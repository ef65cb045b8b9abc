import Foundation
import JSON
import TestSupport
import Testing

@testable import ScenarioRunner

/// `adapter-check`: the Swift adapter passes every check, and an adapter that answers
/// `ok: true` to anything fails the checks it breaks, each saying what to fix.
@Suite struct AdapterConformanceTests {
    /// The adapter's wall-clock budgets are generous here (60 s an answer, 30 s to exit at the end
    /// of stdin): tests run on loaded machines, where the spawned adapter is scheduled late through
    /// no fault of its own (its exit once took over the documented 2 s in a full `make test`).
    /// What the checks judge, that it answers and exits by itself, still fails when broken.
    @Test func theSwiftAdapterPassesEveryCheck() throws {
        let suite = try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder])
        let report = try AdapterConformance(
            command: "'\(ServerProcess.binary.path)' adapter --quiet --request-timeout 1",
            options: .onALoadedMachine,
            scenarios: suite.scenarios
        ).run()
        #expect(report.passed, "\(report.text)")
        #expect(report.ran >= 26 && report.failed == 0)
        // Every fault kind was armed, the delay past the SDK's 1 s timeout included.
        for fault in ["a 503", "a body that is not JSON", "wrong types in every field", "a reset connection"] {
            #expect(report.checks.contains { $0.name.hasPrefix(fault) && $0.problem == nil && $0.skipped == nil })
        }
        #expect(
            report.checks.contains {
                $0.name.hasPrefix("a check answered after the SDK's request timeout") && $0.skipped == nil
            }
        )
        #expect(
            report.suite == "runs \(suite.scenarios.count) of \(suite.scenarios.count) bundled scenarios",
            "\(report.text)"
        )
        #expect(report.text.hasSuffix(report.suite ?? "-"))
    }

    /// The web SDK with a transport that dies on an answer whose `lifetime` has the wrong type:
    /// every other check holds, and adapter-check fails it at the wrong-types fault.
    @Test func anAdapterThatCrashesOnAWrongTypesAnswerFailsTheCheck() throws {
        let web = TestFiles.packageRoot + "/SDKs/web"
        let dir = try TestFiles.folder([
            "crashing.mjs": """
            import readline from 'node:readline';
            import { AdapterHost } from '\(web)/adapter.js';
            import { fetchTransport } from '\(web)/src/lerix.js';
            const inner = fetchTransport({ timeoutMs: 2000 });
            // Like an SDK that casts `lifetime` to a number without a check.
            const transport = async (request) => {
              const answer = await inner(request);
              if (/"lifetime"\\s*:\\s*"/.test(answer.body)) process.exit(134);
              return answer;
            };
            const host = new AdapterHost({ transport, log: () => {} });
            const rl = readline.createInterface({ input: process.stdin, terminal: false });
            for await (const line of rl) {
              if (!line.trim()) continue;
              process.stdout.write(JSON.stringify(await host.handleLine(line)) + '\\n');
            }
            process.exit(0);
            """
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let suite = try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder])
        let report = try AdapterConformance(command: "node '\(dir)/crashing.mjs'", scenarios: suite.scenarios).run()
        #expect(!report.passed)
        let wrongTypes = report.checks.first { $0.name.hasPrefix("wrong types in every field") }
        #expect(
            wrongTypes?.problem?.contains("did not survive wrong types in every field") == true,
            "\(report.text)"
        )
        #expect(report.checks.first { $0.name.hasPrefix("a 503") }?.problem == nil, "\(report.text)")
        // The closing line says what its capabilities would run: the web adapter's, push skipped.
        #expect(
            report.suite?.contains("skips") == true
                && report.suite?.contains("web pages receive no silent push") == true
        )
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
            # Lingers after its stdin ended, as an adapter with a timer left running does.
            import time
            time.sleep(30)
            """
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try AdapterConformance(
            command: "python3 '\(dir)/sloppy.py'",
            options: .init(commandTimeout: 5, exitTimeout: 0.5, passStderrThrough: false)
        ).run()
        #expect(!report.passed)
        func problem(_ prefix: String) -> String? { report.checks.first { $0.name.hasPrefix(prefix) }?.problem }
        #expect(problem("hello")?.contains(#"/capabilities/1: "teleport" does not match"#) == true, "\(report.text)")
        #expect(problem("hello for an adapter protocol")?.contains("answer.error") == true, "\(report.text)")
        #expect(problem("a line that is not JSON")?.contains("/error: missing (required)") == true, "\(report.text)")
        #expect(problem("an unknown command")?.contains("answer.error") == true, "\(report.text)")
        #expect(problem("an unknown key in create's config") != nil)
        #expect(problem("create makes a device")?.contains("/screen: missing (required)") == true, "\(report.text)")
        #expect(report.checks.contains { $0.skipped == "hello lists no push" })
        #expect(report.text.contains("✘ a missing field is refused"))
        // The exit check judges the budget it was given, and says it.
        #expect(
            problem("at the end of stdin the adapter exits by itself within 0.5 s")?
                .contains("still running 0.5 s after its stdin closed") == true,
            "\(report.text)"
        )
    }

    /// Users get the lifecycle's promise of docs/ADAPTER.md unless they ask for more.
    @Test func theExitBudgetIsTheDocumentedTwoSecondsByDefault() throws {
        #expect(SubprocessAdapter.Options().exitTimeout == 2)
        let doc = try String(contentsOfFile: TestFiles.packageRoot + "/docs/ADAPTER.md", encoding: .utf8)
        #expect(doc.contains("When stdin ends the adapter exits (within 2 s; then it is killed with its group)"))
        #expect(doc.contains("`adapter-check --exit-timeout S`"))
        let bad = try ServerProcess.run(["adapter-check", "--exit-timeout", "0", "true"])
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(bad.stderr.contains("--exit-timeout takes seconds above 0 and at most 3600, not '0'"), "\(bad.stderr)")
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
        // The runner's CPU time, not wall time: the 7 s were validation on the runner's thread,
        // and a loaded machine only delays the run (the adapter's own time is not counted).
        let (report, cpu) = try ThreadCPUTime.of {
            try AdapterConformance(
                command: "python3 '\(dir)/many.py'",
                options: .init(commandTimeout: 5, passStderrThrough: false)
            ).run()
        }
        let hello = report.checks.first { $0.name.hasPrefix("hello") }?.problem ?? ""
        #expect(hello.contains("16000 capabilities; at most 64"), "\(report.text)")
        #expect(cpu < .seconds(2), "\(cpu)")
    }
}
