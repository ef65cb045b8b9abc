import Foundation
import JSON
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// `--json` and `--markdown`: every verdict, step, skip reason and spec row survives the file,
/// the file is what docs/scenario-results.schema.json says, and the summary says what failed.
@Suite struct ResultDocumentTests {
    static let passes =
        "name: passes\ncovers: [check.app-start]\ndevices:\n  p: {platform: ios}\nsteps:\n  - launch: p\n  - expect: {device: p, checks: 1}\n"
    static let fails =
        "name: fails\ncovers: [check.foreground]\ndevices:\n  p: {platform: ios}\nsteps:\n  - launch: p\n  - expect: {device: p, checks: 5}\n  - after: 1m\n"
    static let skipped =
        "name: mac only\ncovers: [check.foreground-web]\ndevices:\n  mac: {platform: macos}\nsteps:\n  - launch: mac\n  - expect: {device: mac, checks: 1}\n"

    /// A pass, a failure at step 2 of 3, a skip (the fake adapter emulates no macOS) and a file in error.
    static func mixedRun() throws -> ResultDocument {
        let suite = ScenarioSuite(
            scenarios: [
                try Scenario.parse(Array(passes.utf8), file: "a-passes.yaml"),
                try Scenario.parse(Array(fails.utf8), file: "b-fails.yaml"),
                try Scenario.parse(Array(skipped.utf8), file: "c-mac.yaml"),
            ],
            brokenFiles: [
                ScenarioFileErrors([
                    ScenarioError(
                        "unknown step 'lanch'",
                        at: SourceLocation(file: "0-typo.yaml", mark: .init(line: 5, column: 5))
                    )
                ])
            ]
        )
        var options = SuiteOptions()
        options.recordTimelines = true
        let result = SuiteRunner(options: options).run(suite, in: FakeEnvironment())
        return ResultDocument(
            tool: "lerix-mock test",
            catalogue: suite.catalogue,
            runs: [RunRecord(mode: .inProcess, seed: 1, wallSeconds: 0.25, result: result)]
        )
    }

    @Test func aRunRoundTripsThroughItsJSONFileWithEveryVerdictStepAndSkipReason() throws {
        let document = try Self.mixedRun()
        let bytes = document.json.prettySerialized()
        let again = try ResultDocument.parse(bytes, file: "run.json")
        let outcomes = again.runs[0].result.outcomes
        #expect(outcomes.map(\.scenario) == ["0-typo.yaml", "passes", "fails", "mac only"])
        #expect(outcomes.map(\.statusName) == ["error", "passed", "failed", "skipped"])
        #expect(outcomes.map(\.position) == [0, 1, 2, 3])
        #expect(again.runs[0].adapter == AdapterIdentity(name: "fake", version: "0"))
        #expect(again.runs[0].result.summary == document.runs[0].result.summary)
        // The failing scenario: step 1 passed, step 2 failed with expected vs seen, step 3 never ran.
        let failed = outcomes[2]
        #expect(failed.steps.map(\.status) == [.passed, .failed, .notRun])
        #expect(failed.steps[0].startedAt == 0 && failed.steps[2].startedAt == nil)
        #expect(failed.failedStep?.number == 2)
        #expect(failed.failedStep?.location == "b-fails.yaml:7:5")
        #expect(
            failed.failedStep?.message.contains("checks: expected 5, seen 1") == true,
            "\(failed.failedStep?.message ?? "")"
        )
        #expect(failed.covers == ["check.foreground"])
        #expect(failed.timeline?.failure?.step == 2 && failed.timeline?.lanes.first?.name == "p")
        #expect(outcomes[1].checks == 1 && outcomes[1].virtualMilliseconds >= 0)
        #expect(outcomes[3].skipReason?.contains("device 'mac' may run on macos only") == true, "\(outcomes[3].status)")
        #expect(outcomes[3].skippedFor == ["platform:macos"])
        #expect(outcomes[3].steps.allSatisfy { $0.status == .notRun })
        // Written again, the same bytes: nothing is lost or invented on the way.
        #expect(again.json.prettySerialized() == bytes)
    }

    @Test func theJSONMatchesItsSchemaAndAFileThatDoesNotIsRefusedWithWhere() throws {
        let json = try Self.mixedRun().json
        #expect(ResultSchema.schema.problems(in: json, against: "document") == [])
        #expect(ResultSchema.schema.definitions.contains("scenario"))
        let bad = String(decoding: json.serialized(), as: UTF8.self).replacingOccurrences(
            of: #""status":"passed""#,
            with: #""status":"green""#
        )
        #expect(throws: ResultFileError.self) { try ResultDocument.parse(Array(bad.utf8), file: "bad.json") }
        do {
            _ = try ResultDocument.parse(Array(bad.utf8), file: "bad.json")
        } catch {
            #expect(error.description.contains("bad.json: does not match"), "\(error)")
            #expect(error.description.contains("/runs/0/scenarios/1/status"), "\(error)")
        }
        let newer = #"{"format": "lerix-mock/scenario-results", "format_version": 2, "tool": "lerix-mock 9"}"#
        do {
            _ = try ResultDocument.parse(Array(newer.utf8), file: "new.json")
            Issue.record("a newer format was read")
        } catch {
            #expect(error.description.contains("format_version 2"), "\(error)")
        }
        do {
            _ = try ResultDocument.parse(Array("<testsuites/>".utf8), file: "junit.xml")
            Issue.record("XML was read")
        } catch {
            #expect(error.description.contains("junit.xml: not JSON"), "\(error)")
        }
    }

    @Test func markdownGivesCountsFailuresWithExpectedAndSeenSkipsByReasonAndRowsWithoutAPass() throws {
        let text = MarkdownReport.markdown(try Self.mixedRun())
        #expect(text.contains("| fake 0 | in-process | 4 | 1 | 1 | 1 | 1 |"), "\(text)")
        #expect(text.contains("#### Failed: fails"))
        #expect(text.contains("Step 2 at `b-fails.yaml:7:5`"))
        #expect(text.contains("checks: expected 5, seen 1"))
        #expect(text.contains("#### Error: 0-typo.yaml"))
        #expect(text.contains("- **lacks platform:macos**: 1 scenario: `mac only`"), "\(text)")
        // check.foreground failed, check.foreground-web was skipped, rows no scenario covers are listed too.
        #expect(text.contains("- `check.foreground` (When an app checks)"), "\(text)")
        #expect(text.contains("— fail: fails"))
        #expect(text.contains("— skip: platform:macos"))
        #expect(text.contains("— no scenario"))
        #expect(!text.contains("`check.app-start`"), "a row with a passing scenario is listed")
    }

    @Test func markdownEscapesWhatARunSays() {
        #expect(MarkdownReport.text("a|b *c* <x>") == #"a\|b \*c\* \<x\>"#)
        #expect(MarkdownReport.code("x `y` z") == "``x `y` z``")
        // The ESC written out by SafeText (the one place text is made safe), not sent raw.
        #expect(MarkdownReport.fenced("```\nq\u{1B}[2J") == "````\n```\nq\\u{1B}[2J\n````\n")
    }
}
