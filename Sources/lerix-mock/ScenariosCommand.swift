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
          --html FILE        also write a self-contained HTML report: each scenario's
                             timeline (devices, screens, checks, pushes, offline, server
                             changes) with the failing step marked
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
                "--junit", "--html", "--filter", "--tag", "--server", "--adapter", "--seed", "--catalogue",
                "--admin-token", "--adapter-timeout",
            ],
            flags: ["--coverage", "-v", "--verbose", "--direct-push", "--no-skips"],
            repeatable: ["--tag"],
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
        if let text = parsed.value("--adapter-timeout") {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 3_600 else {
                CLI.printError(
                    "lerix-mock scenarios: --adapter-timeout takes seconds above 0 and at most 3600, not '\(text)'"
                )
                return 2
            }
            adapterOptions.commandTimeout = seconds
        }
        let junit = parsed.value("--junit")
        if let junit, let problem = ReportFile.problem(writing: junit) {
            CLI.printError("lerix-mock scenarios: --junit: \(problem)")
            return 2
        }
        let html = parsed.value("--html")
        if let html, let problem = ReportFile.problem(writing: html) {
            CLI.printError("lerix-mock scenarios: --html: \(problem)")
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
        let environment: any ScenarioEnvironment
        do {
            environment = try Environments.make(
                serverURL: parsed.value("--server"),
                adapterCommand: parsed.value("--adapter"),
                adminToken: parsed.value("--admin-token"),
                viaGateway: !parsed.flag("--direct-push"),
                adapterOptions: adapterOptions
            )
        } catch {
            CLI.printError("lerix-mock scenarios: \(error)")
            return 2
        }
        let verbose = parsed.flag("-v") || parsed.flag("--verbose")
        var options = SuiteOptions(filter: filter, tags: tags, seed: seed, verbose: verbose) { outcome in
            CLI.printOut(ConsoleReport.line(outcome, verbose: verbose))
        }
        options.recordTimelines = html != nil
        options.shuffleSeed = shuffleSeed
        if let shuffleSeed {
            CLI.printOut("shuffled with seed \(shuffleSeed) (this order again: --shuffle \(shuffleSeed))")
        }
        let result = SuiteRunner(options: options).run(suite, in: environment)
        CLI.printOut(
            "\n\(result.summary)"
                + (result.adapterName.isEmpty ? "" : " (adapter: \(result.adapterName); \(result.checks) checks)")
        )
        let noSkips = parsed.flag("--no-skips")
        if let nothingRan = result.nothingRan {
            CLI.printError("lerix-mock scenarios: \(nothingRan)")
        } else if noSkips, let skipProblem = result.skipProblem {
            CLI.printError("lerix-mock scenarios: \(skipProblem)")
        }
        if let junit, let problem = ReportFile.write(JUnitReport.xml(result), to: junit) {
            CLI.printError("lerix-mock scenarios: --junit: \(problem)")
            return 2
        }
        if let html, let problem = ReportFile.write(HTMLReport.html(result), to: html) {
            CLI.printError("lerix-mock scenarios: --html: \(problem)")
            return 2
        }
        return (noSkips ? result.succeededWithoutSkips : result.succeeded) ? 0 : 1
    }
}
