import Foundation
import JSON
import Synchronization
import TestSupport
import Testing

@testable import ScenarioRunner

/// `--jobs N`: workers side by side, each scenario in a world of its own; what is reported is
/// the serial run, in its order, with its verdicts.
@Suite struct ParallelRunTests {
    @Test func workersHandResultsOnInItemOrderWhateverFinishesFirst() {
        let started = Mutex<Set<Int>>([])
        var delivered: [Int] = []
        // Early items take longest, so later ones finish first.
        OrderedWorkers.run(
            count: 12,
            workers: 4,
            work: { index in
                started.withLock { _ = $0.insert(index) }
                usleep(useconds_t((12 - index) * 3_000))
                return index * 10
            }
        ) { index, value in
            #expect(value == index * 10)
            delivered.append(index)
        }
        #expect(delivered == Array(0..<12))
        #expect(started.withLock { $0 } == Set(0..<12))
    }

    @Test func theBundledSuiteOnFourWorkersInProcessGivesTheSerialVerdictsInTheSerialOrder() throws {
        var suite = try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder])
        suite.scenarios = suite.scenarios.filter { !$0.tags.contains("slow") }
        func run(jobs: Int) -> (SuiteResult, [String]) {
            let printed = Mutex<[String]>([])
            var options = SuiteOptions { outcome in printed.withLock { $0.append(outcome.scenario) } }
            options.jobs = jobs
            let result = SuiteRunner(options: options).run(suite, in: InProcessEnvironment())
            return (result, printed.withLock { $0 })
        }
        let (serial, serialOrder) = run(jobs: 1)
        let (parallel, parallelOrder) = run(jobs: 4)
        #expect(serial.outcomes.count >= 30 && serial.passed == serial.outcomes.count, "\(serial.summary)")
        #expect(parallel.outcomes.map(\.scenario) == serial.outcomes.map(\.scenario))
        #expect(parallel.outcomes.map(\.statusName) == serial.outcomes.map(\.statusName))
        #expect(parallel.outcomes.map(\.position) == serial.outcomes.map(\.position))
        #expect(parallel.outcomes.map(\.checks) == serial.outcomes.map(\.checks))
        #expect(parallelOrder == serialOrder, "progress out of the serial order")
    }

    /// (adapter, scenario, status) of every scenario of a results file.
    static func verdicts(_ path: String) throws -> [String] {
        let document = try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return (document["runs"]?.arrayValue ?? []).flatMap { run in
            (run["scenarios"]?.arrayValue ?? []).map {
                "\(run["adapter"]?["name"]?.stringValue ?? "?") \($0["name"]?.stringValue ?? "?"): \($0["status"]?.stringValue ?? "?")"
            }
        }
    }

    /// Through the Swift adapter and the web adapter out of process, in one matrix run each:
    /// `--jobs 4` gives `--jobs 1`'s verdicts, and the matrix has one column per SDK.
    @Test func fourWorkersThroughTheSwiftAndWebAdaptersGiveTheSerialVerdictsAndOneMatrix() throws {
        let dir = try TestFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let binary = ServerProcess.binary.path
        var console: [String] = []
        for jobs in [1, 4] {
            let run = try ServerProcess.run(
                [
                    // A generous answer budget: the adapters are spawned on a loaded test machine.
                    "scenarios", "Scenarios", "--jobs", "\(jobs)", "--adapter-timeout", "60",
                    "--adapter", "\(binary) adapter --quiet",
                    "--adapter",
                    "node SDKs/web/adapter.js", "--json", "\(dir)/jobs-\(jobs).json", "--markdown",
                    "\(dir)/jobs-\(jobs).md",
                    "--html", "\(dir)/jobs-\(jobs).html", "--junit", "\(dir)/jobs-\(jobs).xml",
                ],
                in: TestFiles.packageRoot
            )
            #expect(run.status == 0, "\(run.stdout.suffix(3000))\(run.stderr)")
            console.append(
                run.stdout.split(separator: "\n").filter {
                    $0.hasPrefix("PASS") || $0.hasPrefix("SKIP") || $0.hasPrefix("FAIL")
                }
                .map { String($0.prefix(50)) }.joined(separator: "\n")
            )
        }
        let serial = try Self.verdicts("\(dir)/jobs-1.json")
        #expect(serial.count >= 60 && serial.contains { $0.hasPrefix("lerix-web-sdk") && $0.hasSuffix(": skipped") })
        #expect(try Self.verdicts("\(dir)/jobs-4.json") == serial)
        #expect(console[0] == console[1], "the console order changed with --jobs")
        let markdown = try String(contentsOfFile: "\(dir)/jobs-4.md", encoding: .utf8)
        #expect(
            markdown.contains("### Conformance matrix\n\n| spec row | lerix-swift-sdk "),
            "\(markdown.prefix(2000))"
        )
        #expect(markdown.contains("| `check.silent-push` | pass | skip: "))
        #expect(markdown.contains("web pages receive no silent push"))
        let html = try String(contentsOfFile: "\(dir)/jobs-4.html", encoding: .utf8)
        #expect(html.contains("<table class=\"matrix\">") && html.contains("href=\"#r1-s"))
        let xml = try String(contentsOfFile: "\(dir)/jobs-4.xml", encoding: .utf8)
        #expect(xml.components(separatedBy: "<testsuite ").count == 3, "one <testsuite> per adapter")
    }

    @Test func jobsOutOfRangeIsBadUsage() throws {
        let run = try ServerProcess.run(["scenarios", "Scenarios", "--jobs", "0"], in: TestFiles.packageRoot)
        #expect(run.status == 2 && run.stderr.contains("--jobs takes a number of workers from 1 to 256, not '0'"))
    }
}
