import Foundation
import TestSupport
import Testing

/// `lerix-mock scenarios` where a harness could say "ok" to a mistake: the built binary, its
/// output and exit status, as CI meets them.
@Suite struct ScenariosCommandLineTests {
    static let passing =
        "name: passes\ntags: [fast]\ndevices:\n  phone: {platform: android}\nsteps:\n  - launch: phone\n  - expect: {device: phone, checks: 1}\n"

    /// The package's own Scenarios/ folder.
    static var bundled: String { TestFiles.packageRoot + "/Scenarios" }

    @Test func aFilterThatMatchesNothingFailsWithASuggestion() throws {
        let dir = try TestFiles.folder(["a.yaml": Self.passing])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try ServerProcess.run(["scenarios", dir, "--filter", "pases"])
        #expect(run.status == 2)
        #expect(
            run.stderr.contains(
                "no scenarios matched: no scenario name or file contains 'pases' (did you mean 'passes'?)"
            ),
            "\(run.stderr)"
        )
        #expect(!run.stdout.contains("PASS"))
    }

    @Test func aTagNoScenarioHasFailsEvenBesideOneThatMatches() throws {
        let dir = try TestFiles.folder(["a.yaml": Self.passing])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let alone = try ServerProcess.run(["scenarios", dir, "--tag", "fats"])
        #expect(alone.status == 2)
        #expect(alone.stderr.contains("no scenario is tagged 'fats' (did you mean 'fast'?)"), "\(alone.stderr)")
        #expect(alone.stderr.contains("tags in use: fast"))
        let beside = try ServerProcess.run(["scenarios", dir, "--tag", "fast", "--tag", "fats"])
        #expect(beside.status == 2)
        #expect(!beside.stdout.contains("PASS"))
        let right = try ServerProcess.run(["scenarios", dir, "--tag", "fast"])
        #expect(right.status == 0, "\(right.stdout)\(right.stderr)")
        #expect(right.stdout.contains("PASS  passes"))
    }

    @Test func aFolderWithoutScenariosFails() throws {
        let dir = try TestFiles.folder(["notes.txt": "nothing here\n"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try ServerProcess.run(["scenarios", dir])
        #expect(run.status == 2)
        #expect(run.stderr.contains("no scenario files in \(dir)"))
    }

    @Test func anUnwritableJUnitPathIsReportedBeforeAnythingRuns() throws {
        let dir = try TestFiles.folder(["a.yaml": Self.passing])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try ServerProcess.run(["scenarios", dir, "--junit", dir + "/no/such/folder/report.xml"])
        #expect(run.status == 2)
        #expect(
            run.stderr.contains("--junit: cannot write \(dir)/no/such/folder/report.xml: No such file or directory"),
            "\(run.stderr)"
        )
        #expect(!run.stdout.contains("PASS"), "the suite ran before the path was checked")
        let folderAsFile = try ServerProcess.run(["scenarios", dir, "--junit", dir])
        #expect(folderAsFile.status == 2)
        #expect(folderAsFile.stderr.contains("it is a folder"))
    }

    @Test func htmlIsWrittenBesideJUnitAndAnUnwritablePathIsReportedFirst() throws {
        let dir = try TestFiles.folder(["a.yaml": Self.passing])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bad = try ServerProcess.run(["scenarios", dir, "--html", dir + "/no/such/folder/report.html"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--html: cannot write \(dir)/no/such/folder/report.html"), "\(bad.stderr)")
        #expect(!bad.stdout.contains("PASS"), "the suite ran before the path was checked")
        let run = try ServerProcess.run(["scenarios", dir, "--html", dir + "/r.html", "--junit", dir + "/r.xml"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let html = try String(contentsOfFile: dir + "/r.html", encoding: .utf8)
        #expect(html.contains("<section class=\"scenario passed\"") && html.contains("<svg class=\"timeline\""))
        #expect(FileManager.default.fileExists(atPath: dir + "/r.xml"))
    }

    @Test func aFileThatDoesNotParseIsAJUnitErrorWithEveryMistake() throws {
        let dir = try TestFiles.folder([
            "a-broken.yaml": """
            name: broken
            tagz: [x]
            devices:
              phone: {platfrom: ios}
              tab: {platform: andriod}
            steps:
              - lanch: phone
              - after: soon
              - expect: {device: phone, scren: none}
            """,
            "b-passes.yaml": Self.passing,
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let junit = dir + "/report.xml"
        let run = try ServerProcess.run(["scenarios", ".", "--junit", junit], in: dir)
        #expect(run.status == 1)
        let file = "./a-broken.yaml"
        for line in [
            "ERROR \(file)",
            "\(file):2:1: unknown key 'tagz' in a scenario (did you mean 'tags'?)",
            "\(file):4:11: unknown key 'platfrom' in device 'phone' (did you mean 'platform'?)",
            "\(file):5:19: unknown platform 'andriod' (did you mean 'android'?)",
            "\(file):7:5: unknown step 'lanch' (did you mean 'launch'?)",
            "\(file):8:12: `after` takes a duration",
            "\(file):9:29: unknown key 'scren' in a device expectation (did you mean 'screen'?)",
            "PASS  passes",
            "1 passed, 0 failed, 1 error, 0 skipped",
        ] {
            #expect(run.stdout.contains(line), "missing: \(line)\n\(run.stdout)")
        }
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"tests="2" failures="0" errors="1""#), "\(xml)")
        #expect(xml.contains(#"<error message="6 mistakes in the file, first: "#), "\(xml)")
        #expect(!xml.contains("<failure"))
    }

    @Test func coversIdsAreCheckedOutsideScenariosAndCoverageWorksThere() throws {
        let dir = try TestFiles.folder([
            "s.yaml": "name: s\ncovers: [check.app-strat]\ndevices: {}\nsteps: []\n",
            "t.yaml": "name: t\ncovers: [check.app-start]\ndevices: {}\nsteps:\n  - expect_pushes: {count: 0}\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try ServerProcess.run(["scenarios", dir], in: dir)
        #expect(run.status == 1)
        #expect(
            run.stdout.contains(
                "s.yaml:2:10: `covers` names 'check.app-strat', which is not in the spec catalogue (did you mean 'check.app-start'?)"
            ),
            "\(run.stdout)"
        )
        let coverage = try ServerProcess.run(["scenarios", dir + "/t.yaml", "--coverage"])
        #expect(coverage.status == 0, "\(coverage.stderr)")
        #expect(coverage.stdout.contains("✓ check.app-start"))
        #expect(coverage.stdout.contains("✗ push.throttle"))
        #expect(coverage.stdout.contains("spec coverage: 1 of "))
        let selected = try ServerProcess.run([
            "scenarios", dir + "/t.yaml", "--coverage", "--filter", "nothing-like-it",
        ])
        #expect(selected.status == 2, "--coverage honours --filter too")
    }

    @Test func aGlobOverScenariosTakesTheCatalogueAsTheCatalogueNotAsAScenario() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.bundled).filter { $0.hasSuffix(".yaml") }
            .sorted()
        #expect(files.contains("spec-catalogue.yaml"))
        let picked = files.filter {
            $0 == "spec-catalogue.yaml" || $0 == "refresh-fetches-now.yaml" || $0 == "not-modified-answers.yaml"
        }
        let run = try ServerProcess.run(["scenarios"] + picked.map { Self.bundled + "/" + $0 })
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("2 passed, 0 failed, 0 skipped"), "\(run.stdout)")
        #expect(!run.stdout.contains("spec-catalogue"))
    }

    @Test func theVersionIsPrinted() throws {
        let run = try ServerProcess.run(["--version"])
        #expect(run.status == 0)
        let line = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("lerix-mock "), "\(line)")
        let version = line.dropFirst("lerix-mock ".count).split(separator: " ").first.map(String.init) ?? ""
        let parts = version.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "not a semantic version: \(version)")
        // The release's one place is the scenario language's Release.swift; the binary prints that one.
        let source = try String(
            contentsOfFile: TestFiles.packageRoot + "/Sources/ScenarioLanguage/Release.swift",
            encoding: .utf8
        )
        #expect(source.contains("public static let version = \"\(version)\""), "\(line)")
        #expect(line.hasSuffix("; adapter protocol 1)"), "\(line)")
        let extra = try ServerProcess.run(["--version", "now"])
        #expect(extra.status == 2)
        let help = try ServerProcess.run(["--help"])
        #expect(help.stdout.contains("--version"))
    }
}
