import Foundation
import JSON
import TestSupport
import Testing

/// `lerix-mock explore` as a user meets it: the built binary, its summary, `--json`, the files
/// `--out` writes, `--replay`, exit statuses and the words of a usage error.
@Suite struct ExploreCommandLineTests {
    @Test func aCleanRunPrintsItsSummaryAndExitsZero() throws {
        let run = try ServerProcess.run(["explore", "--runs", "3", "--steps", "8", "--platform", "ios"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let last = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("3 histories ("), "\(run.stdout)")
        #expect(
            last.hasSuffix(
                "/s), 0 finding(s), 0 harness error(s) (subject: the built-in Swift SDK; reference: the spec properties)"
            ),
            "\(run.stdout)"
        )
    }

    @Test func eachBadFlagIsAUsageErrorThatSaysWhatIsWrong() throws {
        let cases: [([String], String)] = [
            (["--runs", "0"], "--runs takes a whole number above 0"),
            (["--runs", "many"], "--runs takes a whole number above 0"),
            (["--runs", "2", "--time", "5s"], "give --runs or --time, not both"),
            (["--time", "soon"], "--time takes a duration like 60s or 5m, not 'soon'"),
            (["--replay", "7"], "--replay takes SEED:RUN as explore prints it (e.g. 7:12), not '7'"),
            (["--seed", "-1"], "--seed takes a whole number, not '-1'"),
            (["--steps", "1"], "--steps takes a whole number above 1"),
            (["--adapter-timeout", "0"], "--adapter-timeout takes seconds above 0 and at most 3600, not '0'"),
            (["--platform", "tizen"], "--platform tizen: the SDKs compared do not both emulate it"),
            (["extra"], "unexpected argument 'extra'"),
            (["--runz", "3"], "--runz"),
        ]
        for (arguments, message) in cases {
            let run = try ServerProcess.run(["explore"] + arguments)
            #expect(run.status == 2, "\(arguments): \(run.stdout)\(run.stderr)")
            #expect(run.stderr.hasPrefix("lerix-mock explore: "), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(arguments) ran anyway: \(run.stdout)")
        }
    }

    /// A copy of the web SDK with one deliberate bug of Tests/Explore/web-mutants.json (a device
    /// without a version asks as 0.0.0): found, shrunk, written to `--out` in the `--json`'s
    /// shape, failing there and passing on the unmodified SDK, and found again by `--replay`.
    @Test func aBuggySDKIsFoundWrittenAsAFileAndReplayed() throws {
        let root = TestFiles.packageRoot
        let dir = try TestFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sdk = dir + "/web"
        try Self.mutate(sdk, from: root + "/SDKs/web", mutant: "no-version-sent-as-0.0.0", root: root)
        let adapter = "node \(sdk)/adapter.js"
        let out = dir + "/found"
        let run = try ServerProcess.run([
            "explore", "--adapter", adapter, "--runs", "60", "--max-findings", "1", "--json", "--out", out,
            "--junit", dir + "/explore.xml", "--adapter-timeout", "60",
        ])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let result = try JSON.parse(run.stdout)
        for key in ["histories", "wall_seconds", "histories_per_second"] {
            #expect(result[key]?.numberValue != nil, "\(key)")
        }
        #expect(result["subject"]?.stringValue == "lerix-web-sdk (\(adapter))")
        #expect(result["reference"]?.stringValue == "the built-in Swift SDK")
        #expect(result["harness_errors"]?.arrayValue?.isEmpty == true, "\(run.stdout)")
        let findings = try #require(result["findings"]?.arrayValue)
        #expect(findings.count == 1)
        let found = try #require(findings.first)
        #expect(
            Set(found.objectValue?.keys ?? []) == [
                "judge", "signature", "history", "message", "covers", "occurrences", "moves", "shrunk_moves",
                "shrink_runs", "verified", "unverified_reason", "file", "scenario",
            ]
        )
        #expect(found["judge"]?.stringValue == "check-names-the-device", "\(found)")
        #expect(found["covers"]?.arrayValue?.contains("safe.no-version") == true)
        #expect(found["verified"] == .bool(true), "\(found)")
        #expect(found["unverified_reason"] == .null)
        #expect((found["shrunk_moves"]?.intValue ?? 99) <= 10)
        let history = try #require(found["history"]?.stringValue)
        #expect(history.hasPrefix("1:"))

        // The file --out wrote is the one the JSON carries, and a scenario in its own right.
        let file = try #require(found["file"]?.stringValue)
        let text = try String(contentsOfFile: out + "/" + file, encoding: .utf8)
        #expect(text == found["scenario"]?.stringValue)
        #expect(text.contains("--replay \(history)"))
        let junit = try String(contentsOfFile: dir + "/explore.xml", encoding: .utf8)
        #expect(junit.contains("failures=\"1\"") && junit.contains(file))
        let onMutant = try ServerProcess.run([
            "scenarios", out + "/" + file, "--adapter", adapter, "--adapter-timeout", "60",
        ])
        #expect(onMutant.status == 1, "\(onMutant.stdout)\(onMutant.stderr)")
        let plain = "node \(root)/SDKs/web/adapter.js"
        let onPlain = try ServerProcess.run([
            "scenarios", out + "/" + file, "--adapter", plain, "--adapter-timeout", "60",
        ])
        #expect(onPlain.status == 0, "\(onPlain.stdout)\(onPlain.stderr)")

        // --replay runs that one history again and finds the same thing.
        let replay = try ServerProcess.run([
            "explore", "--adapter", adapter, "--replay", history, "--no-shrink", "--json", "--adapter-timeout", "60",
        ])
        #expect(replay.status == 1, "\(replay.stdout)\(replay.stderr)")
        let again = try JSON.parse(replay.stdout)
        #expect(again["histories"]?.intValue == 1)
        let refound = try #require(again["findings"]?.arrayValue?.first)
        #expect(refound["history"]?.stringValue == history)
        #expect(refound["signature"] == found["signature"])
        #expect(refound["moves"] == found["moves"])
    }

    /// SDKs/web copied to `into` with the named mutant's snippet replaced (as Tests/Explore/mutants.py does).
    static func mutate(_ into: String, from web: String, mutant name: String, root: String) throws {
        try FileManager.default.copyItem(atPath: web, toPath: into)
        let list = try JSON.parse(try String(contentsOfFile: root + "/Tests/Explore/web-mutants.json", encoding: .utf8))
        let mutant = try #require(list["mutants"]?.arrayValue?.first { $0["name"]?.stringValue == name })
        let path = into + "/" + (try #require(mutant["file"]?.stringValue))
        let original = try #require(mutant["original"]?.stringValue)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.components(separatedBy: original).count == 2, "the mutant's snippet occurs once")
        try text.replacingOccurrences(of: original, with: try #require(mutant["replacement"]?.stringValue))
            .write(toFile: path, atomically: true, encoding: .utf8)
    }
}
