import Foundation
import TestSupport
import Testing

/// `lerix-mock scenarios` as a user runs it: the built binary, its output and exit status.
@Suite struct ScenariosCommandTests {
    @Test func aFailingSuiteExitsOneWithActionableOutputAndJUnit() throws {
        let dir = try TestFiles.folder([
            "a-typo.yaml": "name: typo\ndevices:\n  phone: {platform: ios}\nsteps:\n  - lanch: phone\n",
            "b-fails.yaml":
                "name: fails\ndevices:\n  phone: {platform: ios, app_version: \"1.0.0\"}\nsteps:\n  - launch: phone\n  - expect: {device: phone, screen: maintenance}\n",
            "c-passes.yaml":
                "name: passes\ndevices:\n  phone: {platform: android}\nsteps:\n  - launch: phone\n  - expect: {device: phone, screen: none, checks: 1}\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let junit = dir + "/report.xml"
        // Run from the folder's parent, given the folder's absolute path: reports name files relative to where the run started.
        let parent = (dir as NSString).deletingLastPathComponent
        let folder = (dir as NSString).lastPathComponent
        let run = try ServerProcess.run(["scenarios", dir, "--junit", junit], in: parent)
        #expect(run.status == 1)
        #expect(run.stdout.contains("\(folder)/a-typo.yaml:5:5: unknown step 'lanch' (did you mean 'launch'?)"))
        #expect(
            run.stdout.contains("step 2 at \(folder)/b-fails.yaml:6:5: expect: {device: phone, screen: maintenance}")
        )
        #expect(run.stdout.contains(#"phone: screen: expected "maintenance", seen "none""#))
        #expect(run.stdout.contains("PASS  passes"))
        #expect(run.stdout.contains("ERROR \(folder)/a-typo.yaml"))
        #expect(!run.stdout.contains(dir + "/"), "an absolute path in the output: \(run.stdout)")
        #expect(run.stdout.contains("1 passed, 1 failed, 1 error, 0 skipped"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"tests="3" failures="1" errors="1""#))
        #expect(xml.contains("\(folder)/b-fails.yaml") && !xml.contains(dir + "/b-fails"))
    }

    @Test func filterAndTagSelectScenarios() throws {
        let dir = try TestFiles.folder([
            "one.yaml": "name: one\ntags: [fast]\ndevices: {}\nsteps:\n  - expect_pushes: {count: 0}\n",
            "two.yaml": "name: two\ndevices: {}\nsteps:\n  - expect_pushes: {count: 0}\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let byTag = try ServerProcess.run(["scenarios", dir, "--tag", "fast"])
        #expect(byTag.status == 0)
        #expect(byTag.stdout.contains("PASS  one") && !byTag.stdout.contains("PASS  two"))
        let byFilter = try ServerProcess.run(["scenarios", dir, "--filter", "TWO"])
        #expect(byFilter.stdout.contains("PASS  two") && !byFilter.stdout.contains("PASS  one"))
    }

    /// `--shuffle SEED` runs in the seed's order and says so first; `--shuffle` alone draws a seed
    /// and prints it, so the order can be replayed; a seed that is not a number is bad usage.
    @Test func shuffleRunsInTheSeedsOrderAndPrintsTheSeed() throws {
        var files: [String: String] = [:]
        for n in 1...6 { files["s\(n).yaml"] = "name: s\(n)\ndevices: {}\nsteps:\n  - expect_pushes: {count: 0}\n" }
        let dir = try TestFiles.folder(files)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func order(_ stdout: String) -> [String] {
            stdout.split(separator: "\n").compactMap {
                $0.hasPrefix("PASS  ") ? String($0.dropFirst(6).prefix(2)) : nil
            }
        }
        let plain = try ServerProcess.run(["scenarios", dir])
        #expect(order(plain.stdout) == ["s1", "s2", "s3", "s4", "s5", "s6"])
        let seeded = try ServerProcess.run(["scenarios", "--shuffle", "7", dir])
        #expect(seeded.status == 0)
        #expect(seeded.stdout.hasPrefix("shuffled with seed 7 (this order again: --shuffle 7)"), "\(seeded.stdout)")
        #expect(Set(order(seeded.stdout)) == Set(order(plain.stdout)) && order(seeded.stdout) != order(plain.stdout))
        #expect(order(try ServerProcess.run(["scenarios", dir, "--shuffle=7"]).stdout) == order(seeded.stdout))
        let drawn = try ServerProcess.run(["scenarios", dir, "--shuffle"])
        let seedLine = drawn.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let seed = seedLine.split(separator: " ").dropFirst(3).first.map(String.init) ?? ""
        #expect(UInt64(seed) != nil, "\(seedLine)")
        #expect(order(try ServerProcess.run(["scenarios", dir, "--shuffle", seed]).stdout) == order(drawn.stdout))
        let bad = try ServerProcess.run(["scenarios", dir, "--shuffle=x"])
        #expect(bad.status == 2 && bad.stderr.contains("--shuffle takes a whole number seed"))
    }

    @Test func coverageListsRowsWithAndWithoutScenarios() throws {
        let dir = try TestFiles.folder([
            "spec-catalogue.yaml":
                "rows:\n  - {id: a.one, section: A, text: First}\n  - {id: a.two, section: A, text: Second}\n",
            "s.yaml": "name: s\ncovers: [a.one]\ndevices: {}\nsteps:\n  - expect_pushes: {count: 0}\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try ServerProcess.run(["scenarios", dir, "--coverage"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("spec coverage: 1 of 2 rows have scenarios"))
        #expect(run.stdout.contains("✓ a.one"))
        #expect(run.stdout.contains("✗ a.two"))
    }

    @Test func badUsageExitsTwoWithASuggestion() throws {
        let run = try ServerProcess.run(["scenarios", "--sead", "3"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("unknown option --sead (did you mean --seed?)"))
        // --adapter alone runs against the runner's own server; an adapter that cannot start is an error, with its words.
        let adapterAlone = try ServerProcess.run(
            [
                "scenarios", "Scenarios/refresh-fetches-now.yaml", "--adapter",
                "exec /bin/sh -c 'echo no such SDK >&2; exit 4'",
            ],
            in: TestFiles.packageRoot
        )
        #expect(adapterAlone.status == 1)
        #expect(adapterAlone.stdout.contains("the adapter did not answer hello"), "\(adapterAlone.stdout)")
        #expect(
            adapterAlone.stdout.contains("exited with status 4") && adapterAlone.stdout.contains("    no such SDK"),
            "\(adapterAlone.stdout)"
        )
        #expect(try ServerProcess.run(["scenarios", "--adapter-timeout", "0"]).status == 2)
    }
}
