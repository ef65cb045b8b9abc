import Foundation
import JSON
import TestSupport
import Testing

/// `scenarios --json/--markdown/--shard/--timings/--failed-from` and `report merge`, as CI runs
/// them: the built binary, its files and exit statuses.
@Suite struct CIScaleCommandTests {
    static let passes =
        "name: passes\ncovers: [check.app-start]\ndevices:\n  p: {platform: ios}\nsteps:\n  - launch: p\n  - expect: {device: p, checks: 1}\n"
    static func fails(_ name: String) -> String {
        "name: \(name)\ndevices:\n  p: {platform: ios, app_version: \"1.0.0\"}\nsteps:\n  - launch: p\n  - expect: {device: p, screen: maintenance}\n  - after: 1m\n"
    }

    /// A folder with two passing scenarios, two failing ones and a file in error.
    static func mixedFolder() throws -> String {
        try TestFiles.folder([
            "a-passes.yaml": passes,
            "b-fails.yaml": fails("fails"),
            "c-typo.yaml": "name: typo\ndevices:\n  phone: {platform: ios}\nsteps:\n  - lanch: phone\n",
            "d-fails-too.yaml": fails("fails too"),
            "e-passes.yaml": passes.replacingOccurrences(of: "name: passes", with: "name: passes too"),
        ])
    }

    static func document(_ path: String) throws -> JSON {
        try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// (name, status) of every scenario of every run, in order.
    static func verdicts(_ document: JSON) -> [String] {
        (document["runs"]?.arrayValue ?? []).flatMap { run in
            (run["scenarios"]?.arrayValue ?? []).map {
                "\($0["name"]?.stringValue ?? "?"): \($0["status"]?.stringValue ?? "?")"
            }
        }
    }

    @Test func jsonAndMarkdownSayEveryVerdictStepAndFailure() throws {
        let dir = try Self.mixedFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try ServerProcess.run(
            ["scenarios", dir, "--json", dir + "/out.json", "--markdown", dir + "/out.md"],
            in: dir
        )
        #expect(run.status == 1)
        let json = try Self.document(dir + "/out.json")
        #expect(json["format"]?.stringValue == "lerix-mock/scenario-results" && json["format_version"]?.intValue == 1)
        #expect(json["tool"]?.stringValue?.hasPrefix("lerix-mock ") == true)
        let runJSON = json["runs"]?.arrayValue?.first ?? .null
        #expect(runJSON["mode"]?.stringValue == "in-process")
        #expect(runJSON["adapter"]?["name"]?.stringValue?.isEmpty == false)
        #expect(runJSON["adapter"]?["version"]?.stringValue?.isEmpty == false)
        #expect(runJSON["counts"]?["passed"]?.intValue == 2 && runJSON["counts"]?["failed"]?.intValue == 2)
        #expect(runJSON["counts"]?["errors"]?.intValue == 1)
        #expect(
            Self.verdicts(json) == [
                "c-typo.yaml: error", "passes: passed", "fails: failed", "fails too: failed", "passes too: passed",
            ]
        )
        let failing = runJSON["scenarios"]?.arrayValue?[2] ?? .null
        #expect(
            failing["steps"]?.arrayValue?.compactMap { $0["status"]?.stringValue } == ["passed", "failed", "not_run"]
        )
        #expect(
            failing["failure"]?["step"]?["message"]?.stringValue == #"p: screen: expected "maintenance", seen "none""#,
            "\(failing.serializedString)"
        )
        #expect(failing["failure"]?["step"]?["location"]?.stringValue == "b-fails.yaml:6:5")
        #expect(failing["timeline"]?["lanes"]?.arrayValue?.count == 1)
        let markdown = try String(contentsOfFile: dir + "/out.md", encoding: .utf8)
        #expect(markdown.contains("#### Failed: fails\n"))
        #expect(markdown.contains(#"p: screen: expected "maintenance", seen "none""#))
        #expect(markdown.contains("#### Error: c-typo.yaml"))
    }

    @Test func shardsOfTheBundledSuiteMergeIntoTheUnshardedRun() throws {
        let dir = try TestFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let root = TestFiles.packageRoot
        let whole = try ServerProcess.run(
            ["scenarios", "Scenarios", "--direct-push", "--json", dir + "/all.json"],
            in: root
        )
        #expect(whole.status == 0, "\(whole.stdout)\(whole.stderr)")
        let all = try Self.document(dir + "/all.json")
        #expect(Self.verdicts(all).count >= 30)
        // By count, then balanced by the whole run's wall times: either way the merge is the run.
        for timings in [[], ["--timings", dir + "/all.json"]] {
            var files: [String] = []
            var names: [[String]] = []
            for index in 1...3 {
                let file = dir + "/shard-\(index).json"
                let shard = try ServerProcess.run(
                    ["scenarios", "Scenarios", "--direct-push", "--shard", "\(index)/3", "--json", file] + timings,
                    in: root
                )
                #expect(shard.status == 0, "\(shard.stdout)\(shard.stderr)")
                #expect(shard.stdout.contains("shard \(index)/3 (--shard \(index)/3)"))
                files.append(file)
                names.append(Self.verdicts(try Self.document(file)))
            }
            #expect(names.allSatisfy { !$0.isEmpty })
            #expect(Set(names.flatMap { $0 }).count == names.flatMap { $0 }.count, "a scenario ran in two shards")
            let merge = try ServerProcess.run(
                ["report", "merge"] + files.reversed()
                    + [
                        "--json", dir + "/merged.json", "--junit", dir + "/merged.xml", "--markdown",
                        dir + "/merged.md",
                    ],
                in: root
            )
            #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
            let merged = try Self.document(dir + "/merged.json")
            #expect(Self.verdicts(merged) == Self.verdicts(all))
            #expect(
                merged["runs"]?.arrayValue?[0]["counts"]?["passed"] == all["runs"]?.arrayValue?[0]["counts"]?["passed"]
            )
            #expect(merged["runs"]?.arrayValue?[0]["shards"]?.arrayValue?.count == 3)
            let xml = try String(contentsOfFile: dir + "/merged.xml", encoding: .utf8)
            #expect(xml.contains(#"<testsuites tests="\#(Self.verdicts(all).count)" failures="0" errors="0""#))
        }
    }

    @Test func ciVariablesPickTheSameShardAsTheFlagAndBazelsStatusFileIsTouched() throws {
        let dir = try TestFiles.folder([
            "a.yaml": Self.passes, "b.yaml": Self.passes.replacingOccurrences(of: "passes", with: "b"),
            "c.yaml": Self.passes.replacingOccurrences(of: "passes", with: "c"),
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let flag = try ServerProcess.run(["scenarios", dir, "--shard", "2/3"])
        let gitlab = try ServerProcess.run(
            ["scenarios", dir],
            environment: ["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"]
        )
        let status = dir + "/shard-status"
        let bazel = try ServerProcess.run(
            ["scenarios", dir],
            environment: ["TEST_SHARD_INDEX": "1", "TEST_TOTAL_SHARDS": "3", "TEST_SHARD_STATUS_FILE": status]
        )
        for run in [flag, gitlab, bazel] {
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(
                run.stdout.contains("PASS  b") && !run.stdout.contains("PASS  passes")
                    && !run.stdout.contains("PASS  c")
            )
        }
        #expect(bazel.stdout.contains("shard 2/3 (TEST_SHARD_INDEX=1 of TEST_TOTAL_SHARDS=3)"))
        #expect(FileManager.default.fileExists(atPath: status))
        let wrong = try ServerProcess.run(
            ["scenarios", dir],
            environment: ["TEST_SHARD_INDEX": "3", "TEST_TOTAL_SHARDS": "3"]
        )
        #expect(
            wrong.status == 2 && wrong.stderr.contains("counts from 0, so it must be 0 to 2, not 3"),
            "\(wrong.stderr)"
        )
        let help = try ServerProcess.run(["scenarios", "--help"])
        #expect(help.stdout.contains("I counted from 1") && help.stdout.contains("TEST_SHARD_INDEX (counted from 0"))
    }

    @Test func failedFromRerunsExactlyWhatFailedOrWasInError() throws {
        let dir = try Self.mixedFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try ServerProcess.run(["scenarios", dir, "--json", dir + "/first.json"], in: dir)
        #expect(first.status == 1)
        let rerun = try ServerProcess.run(
            ["scenarios", dir, "--failed-from", dir + "/first.json", "--json", dir + "/rerun.json"],
            in: dir
        )
        #expect(rerun.status == 1)
        #expect(rerun.stdout.contains("rerunning the 3 scenarios that failed or were in error"))
        let again = try Self.document(dir + "/rerun.json")
        #expect(Self.verdicts(again) == ["c-typo.yaml: error", "fails: failed", "fails too: failed"])
        #expect(again["runs"]?.arrayValue?[0]["rerun"]?.boolValue == true)
        // Fixed: the rerun passes, and merged over the first run it leaves a green report.
        for file in ["b-fails.yaml", "d-fails-too.yaml"] {
            let text = try String(contentsOfFile: dir + "/" + file, encoding: .utf8)
            try text.replacingOccurrences(of: "screen: maintenance", with: "screen: none").write(
                toFile: dir + "/" + file,
                atomically: true,
                encoding: .utf8
            )
        }
        try
            "name: typo\ndevices:\n  phone: {platform: ios}\nsteps:\n  - launch: phone\n  - expect: {device: phone, checks: 1}\n"
            .write(toFile: dir + "/c-typo.yaml", atomically: true, encoding: .utf8)
        let fixed = try ServerProcess.run(
            ["scenarios", dir, "--failed-from", dir + "/first.json", "--json", dir + "/fixed.json"],
            in: dir
        )
        #expect(fixed.status == 0, "\(fixed.stdout)\(fixed.stderr)")
        // The file in error is a scenario now, and reruns under its new name.
        #expect(
            Self.verdicts(try Self.document(dir + "/fixed.json")) == [
                "fails: passed", "typo: passed", "fails too: passed",
            ]
        )
        #expect(!fixed.stderr.contains("--failed-from names"), "\(fixed.stderr)")
        let merge = try ServerProcess.run(
            ["report", "merge", dir + "/first.json", dir + "/fixed.json", "--json", dir + "/merged.json"],
            in: dir
        )
        #expect(
            merge.status == 0 && merge.stdout.contains("5 passed, 0 failed, 0 skipped"),
            "\(merge.stdout)\(merge.stderr)"
        )
        #expect(
            Self.verdicts(try Self.document(dir + "/merged.json")) == [
                "typo: passed", "passes: passed", "fails: passed", "fails too: passed", "passes too: passed",
            ]
        )
        try "name: gone\ndevices: {}\nsteps:\n  - expect_pushes: {count: 1}\n".write(
            toFile: dir + "/f-gone.yaml",
            atomically: true,
            encoding: .utf8
        )
        _ = try ServerProcess.run(["scenarios", dir, "--json", dir + "/with-gone.json"], in: dir)
        try FileManager.default.removeItem(atPath: dir + "/f-gone.yaml")
        let renamed = try ServerProcess.run(["scenarios", dir, "--failed-from", dir + "/with-gone.json"], in: dir)
        #expect(renamed.stderr.contains("--failed-from names 1 scenario this suite does not have"), "\(renamed.stderr)")
        // A run where nothing failed reruns nothing and is green.
        let clean = try ServerProcess.run(["scenarios", dir, "--failed-from", dir + "/fixed.json"], in: dir)
        #expect(clean.status == 0 && clean.stdout.contains("nothing failed or was in error"), "\(clean.stdout)")
    }

    @Test func mergeRefusesTheSameShardTwiceAndReportsAMissingOne() throws {
        let dir = try TestFiles.folder([
            "a.yaml": Self.passes, "b.yaml": Self.passes.replacingOccurrences(of: "passes", with: "b"),
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for index in 1...2 {
            let run = try ServerProcess.run([
                "scenarios", dir, "--shard", "\(index)/2", "--json", dir + "/s\(index).json",
            ])
            #expect(run.status == 0)
        }
        let twice = try ServerProcess.run(["report", "merge", dir + "/s1.json", dir + "/s1.json"])
        #expect(twice.status == 2 && twice.stderr.contains("shard 1/2 is in both"), "\(twice.stderr)")
        let missing = try ServerProcess.run(["report", "merge", dir + "/s1.json", "--markdown", dir + "/m.md"])
        #expect(missing.status == 1 && missing.stderr.contains("shard 2/2 missing"), "\(missing.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir + "/m.md"))
        let notResults = try ServerProcess.run(["report", "merge", dir + "/a.yaml"])
        #expect(notResults.status == 2 && notResults.stderr.contains("not JSON"), "\(notResults.stderr)")
        let noFiles = try ServerProcess.run(["report", "merge"])
        #expect(noFiles.status == 2)
    }
}
