import Foundation
import ScenarioRunner

/// `lerix-mock scenarios [PATH…]`: runs scenario suites in virtual time and reports.
enum ScenariosCommand: CLICommand {
    static let name = "scenarios"
    static let summary = "run Scenarios/ suites against the server and an SDK in virtual time"
    static let usage = """
        usage: lerix-mock scenarios [PATH…] [OPTIONS]

        Runs scenario files (YAML or JSON; a folder means every *.yaml, *.yml, *.json in it,
        default Scenarios/). Each scenario drives SDK devices and the server in virtual time:
        a week of app life takes well under a second.

          --junit FILE       also write a JUnit XML report to FILE
          --json FILE        also write every scenario, step, verdict, skip reason, covered
                             spec row and duration as JSON (docs/scenario-results.md); any
                             run's file serves as --timings, --failed-from and `report merge`
          --markdown FILE    also write a summary for a pull request or $GITHUB_STEP_SUMMARY:
                             counts, failures with expected/seen, skips by reason, spec rows
                             without a passing scenario
          --html FILE        also write a self-contained HTML report: each scenario's
                             timeline (devices, screens, checks, pushes, offline, server
                             changes) with the failing step marked
          --shard I/N        run the I-th of N parts of the selection, I counted from 1 as in
                             Playwright and GitLab (1/3, 2/3, 3/3); every scenario lands in
                             exactly one part, the same on every machine. Without --shard:
                             Bazel's TEST_TOTAL_SHARDS + TEST_SHARD_INDEX (counted from 0;
                             TEST_SHARD_STATUS_FILE is touched), else GitLab's CI_NODE_TOTAL +
                             CI_NODE_INDEX (from 1)
          --timings FILE     balance shards by the wall times in FILE (any run's --json)
          --failed-from FILE run only the scenarios that failed or were in error in FILE
                             (a --json file); nothing failed there: nothing runs, exit 0
          --filter TEXT      only scenarios whose name or file contains TEXT (none: exit 2)
          --tag T            only scenarios tagged T (repeatable; a tag no scenario has: exit 2)
          --server URL       use a running `lerix-mock serve --clock manual` instead of an
                             in-process server (it is reset before each scenario, and its
                             pushes go to the runner's push-gateway stand-in for the run)
          --admin-token T    the server's admin token, when it has one
          --adapter "CMD"    spawn another language's adapter (ADAPTER.md); scenarios needing
                             what its `hello` capabilities lack are skipped, each with its
                             reason. Without --server the runner serves its own in-process
                             server (manual clock) on a free loopback port for it.
                             Repeat it (--adapter A --adapter B) to run the suite through each
                             SDK in turn: --html and --markdown then open with the conformance
                             matrix, spec row x SDK, and --junit holds one <testsuite> each
          --jobs N           run N scenarios side by side (default: the number of cores), each
                             with its own server, clock, push gateway and adapter process;
                             output order and verdicts are the serial run's. With --server,
                             one at a time (the one server is reset before each scenario)
          --adapter-timeout S  seconds of wall time an adapter may take to answer one command
                             (default 5); one that misses it, exits or answers out of order
                             fails its scenario and is restarted for the next
          --direct-push      in process, hand the server's APNs/FCM requests straight to the
                             runner's push-gateway stand-in instead of over h2c (no sockets)
          --catalogue FILE   the spec catalogue `covers` ids are checked against (default:
                             a spec-catalogue.yaml given or in the folder, else the built-in one)
          --seed N           seed for random push drops (default 1); same seed, same run
          --shuffle [SEED]   run the scenarios in a random order drawn from SEED (a new
                             one when left out; printed first, so an order can be replayed);
                             verdicts never depend on it: each scenario starts at its own
                             time 0 on a fresh server
          --no-skips         a scenario skipped for a capability the adapter lacks fails the run
          --coverage         print which spec rows have scenarios, and which have none
                             (of the scenarios --filter and --tag select, when given)
          -v                 print every step and push as it happens

        A file that does not parse is reported with every mistake in it, each at its
        file:line:column, and counts as an error (JUnit <error>), never as a pass.

        Exit status: 0 when every selected scenario passed or was skipped (with --no-skips: passed)
        and at least one passed, 1 when a scenario failed, a file is in error or every scenario was skipped, 2 for bad usage (including a --filter or --tag that selects
        nothing, and a --junit path that cannot be written).
        """

    static func run(_ arguments: [String]) -> Int32 {
        let parser = ArgumentParser(
            valued: [
                "--junit", "--html", "--json", "--markdown", "--filter", "--tag", "--server", "--adapter", "--seed",
                "--catalogue",
                "--admin-token", "--adapter-timeout", "--shard", "--timings", "--failed-from", "--jobs",
            ],
            flags: ["--coverage", "-v", "--verbose", "--direct-push", "--no-skips"],
            repeatable: ["--tag", "--adapter"],
            optionallyNumeric: ["--shuffle"]
        )
        let parsed: ArgumentParser.Parsed
        do {
            parsed = try parser.parse(arguments)
        } catch {
            CLI.printError("lerix-mock scenarios: \(error)\n\n\(usage)")
            return 2
        }
        var seed: UInt64 = 1
        if let text = parsed.value("--seed") {
            guard let n = UInt64(text) else {
                CLI.printError("lerix-mock scenarios: --seed takes a whole number, not '\(text)'")
                return 2
            }
            seed = n
        }
        var shuffleSeed: UInt64?
        if parsed.flag("--shuffle") {
            if let text = parsed.value("--shuffle") {
                guard let n = UInt64(text) else {
                    CLI.printError("lerix-mock scenarios: --shuffle takes a whole number seed, not '\(text)'")
                    return 2
                }
                shuffleSeed = n
            } else {
                shuffleSeed = UInt64.random(in: 0...UInt64(UInt32.max))
            }
        }
        var adapterOptions = SubprocessAdapter.Options()
        do {
            if let seconds = try parsed.budgetSeconds("--adapter-timeout") { adapterOptions.commandTimeout = seconds }
        } catch {
            CLI.printError("lerix-mock scenarios: \(error)")
            return 2
        }
        let reports = ReportOutputs(parsed)
        if let problem = reports.problem() {
            CLI.printError("lerix-mock scenarios: \(problem)")
            return 2
        }
        let environmentVariables = ProcessInfo.processInfo.environment
        let selection: RunSelection
        do {
            selection = try RunSelection(parsed, environment: environmentVariables)
        } catch {
            CLI.printError("lerix-mock scenarios: \(error)")
            return 2
        }
        if let problem = RunSelection.touchShardStatusFile(environmentVariables) {
            CLI.printError("lerix-mock scenarios: \(problem)")
            return 2
        }
        let paths = parsed.positional.isEmpty ? ["Scenarios"] : parsed.positional
        let suite: ScenarioSuite
        do {
            suite = try ScenarioSuite.load(paths: paths, catalogue: parsed.value("--catalogue"))
        } catch {
            CLI.printError("lerix-mock scenarios: \(error)")
            return 2
        }
        let filter = parsed.value("--filter")
        let tags = parsed.allValues("--tag")
        if suite.scenarios.isEmpty, suite.brokenFiles.isEmpty {
            CLI.printError(
                "lerix-mock scenarios: no scenario files in \(paths.joined(separator: " ")) (*.yaml, *.yml or *.json)"
            )
            return 2
        }
        if filter != nil || !tags.isEmpty, let problem = suite.selectionProblem(filter: filter, tags: tags) {
            for broken in suite.brokenFiles { CLI.printError("\(broken)") }
            CLI.printError("lerix-mock scenarios: \(problem)")
            return 2
        }
        if parsed.flag("--coverage") {
            for error in suite.errors { CLI.printError("\(error)") }
            CLI.printOut(
                CoverageReport.text(catalogue: suite.catalogue, scenarios: suite.selected(filter: filter, tags: tags))
            )
            return suite.brokenFiles.isEmpty ? 0 : 1
        }
        // One run per --adapter (several: the conformance matrix), or the in-process Swift host.
        let adapterCommands: [String?] = parsed.allValues("--adapter").isEmpty ? [nil] : parsed.allValues("--adapter")
        var jobs = ProcessInfo.processInfo.activeProcessorCount
        if let text = parsed.value("--jobs") {
            guard let n = Int(text), n >= 1, n <= 256 else {
                CLI.printError("lerix-mock scenarios: --jobs takes a number of workers from 1 to 256, not '\(text)'")
                return 2
            }
            jobs = n
            if n > 1, parsed.value("--server") != nil {
                CLI.printError(
                    "lerix-mock scenarios: --server is one server reset before each scenario, so its scenarios run one at a time (--jobs \(n) applies in process and to --adapter without --server)"
                )
            }
        }
        var environments: [any ScenarioEnvironment] = []
        for command in adapterCommands {
            do {
                environments.append(
                    try Environments.make(
                        serverURL: parsed.value("--server"),
                        adapterCommand: command,
                        adminToken: parsed.value("--admin-token"),
                        viaGateway: !parsed.flag("--direct-push"),
                        adapterOptions: adapterOptions
                    )
                )
            } catch {
                CLI.printError("lerix-mock scenarios: \(error)")
                return 2
            }
        }
        let verbose = parsed.flag("-v") || parsed.flag("--verbose")
        var options = SuiteOptions(filter: filter, tags: tags, seed: seed, verbose: verbose) { outcome in
            CLI.printOut(ConsoleReport.line(outcome, verbose: verbose))
        }
        if let only = selection.only {
            let known = Set(suite.scenarios.flatMap { [$0.name, $0.file] } + suite.brokenFiles.map(\.file))
            let gone = only.subtracting(known).sorted()
            if !gone.isEmpty {
                CLI.printError(
                    "lerix-mock scenarios: --failed-from names \(gone.count) scenario\(gone.count == 1 ? "" : "s") this suite does not have (renamed or removed?): \(gone.prefix(5).map { "'\($0)'" }.joined(separator: ", "))\(gone.count > 5 ? ", …" : "")"
                )
            }
        }
        options.shard = selection.shard
        options.timings = selection.timings
        options.only = selection.only
        options.jobs = jobs
        if let shard = selection.shard { CLI.printOut("shard \(shard) (\(selection.shardSource))") }
        if !selection.rerunNote.isEmpty { CLI.printOut(selection.rerunNote) }
        // The JSON carries timelines too, so `report merge --html` can draw them.
        options.recordTimelines = reports.html != nil || reports.json != nil
        options.shuffleSeed = shuffleSeed
        if let shuffleSeed {
            CLI.printOut("shuffled with seed \(shuffleSeed) (this order again: --shuffle \(shuffleSeed))")
        }
        let noSkips = parsed.flag("--no-skips")
        var runs: [RunRecord] = []
        for (command, environment) in zip(adapterCommands, environments) {
            if adapterCommands.count > 1, let command { CLI.printOut("\n== adapter: \(command)") }
            let started = DispatchTime.now().uptimeNanoseconds
            let result = SuiteRunner(options: options).run(suite, in: environment)
            runs.append(
                RunRecord(
                    mode: parsed.value("--server") != nil ? .server : command != nil ? .adapter : .inProcess,
                    seed: seed,
                    jobs: environment.worldsAreIndependent ? jobs : 1,
                    command: command,
                    shards: selection.shard.map { [$0] } ?? [],
                    rerun: selection.only != nil,
                    wallSeconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9,
                    result: result
                )
            )
            CLI.printOut(
                "\n\(result.summary)"
                    + (result.adapterName.isEmpty ? "" : " (adapter: \(result.adapterName); \(result.checks) checks)")
            )
            if let nothingRan = result.nothingRan {
                CLI.printError("lerix-mock scenarios: \(nothingRan)")
            } else if noSkips, let skipProblem = result.skipProblem {
                CLI.printError("lerix-mock scenarios: \(skipProblem)")
            }
        }
        // Stop the runner's own servers before writing, so none outlives the run's output.
        environments.removeAll()
        let document = ResultDocument(tool: Version.tool, catalogue: suite.catalogue, runs: runs)
        if let problem = reports.write(document) {
            CLI.printError("lerix-mock scenarios: \(problem)")
            return 2
        }
        let green = runs.allSatisfy { noSkips ? $0.result.succeededWithoutSkips : $0.result.succeeded }
        return green ? 0 : 1
    }
}
