import ScenarioRunner

/// `lerix-mock adapter-check CMD`: the adapter protocol's conformance run (docs/ADAPTER.md).
enum AdapterCheckCommand: CLICommand {
    static let name = "adapter-check"
    static let summary = "check that an SDK adapter speaks the adapter protocol, before any scenario"
    static let usage = """
        usage: lerix-mock adapter-check "CMD" [OPTIONS]

        Spawns the adapter (`/bin/sh -c CMD`) against the runner's own loopback server and runs it
        through every command of docs/ADAPTER.md: malformed lines, unknown commands, devices and
        keys, create and state (each answer checked against the protocol's JSON Schema), launch,
        the saved answer offline, next_deadline and advance, polling, and the commands its hello
        lists (track, refresh, install, set_clock, push); then it arms faults on a check (a 503, a
        body that is not JSON, wrong types in every field, a reset connection, and a delay past
        the SDK's timeout when hello gives request_timeout_seconds): the SDK must survive each,
        keep its saved answer and report the failure in state; then the end of stdin. Each check
        prints ✔ or ✘ with what was seen and what to fix, and the last line says how many of the
        bundled scenarios the adapter's capabilities will run, and why the rest are skipped.

          --adapter-timeout S  seconds an answer may take (default 5)
          --exit-timeout S     seconds the adapter has to exit once its stdin ends (default 2, the
                               lifecycle's promise; more for a loaded machine, e.g. a busy CI runner)
          --scenarios DIR      the suite the last line counts (default Scenarios, when present)
          --schema             print the protocol's JSON Schema and exit

        Exit status: 0 when every check that applies held, 1 when one did not, 2 for bad usage.
        """

    static func run(_ arguments: [String]) -> Int32 {
        let parser = ArgumentParser(
            valued: ["--adapter-timeout", "--exit-timeout", "--scenarios"],
            flags: ["--schema"]
        )
        let parsed: ArgumentParser.Parsed
        do {
            parsed = try parser.parse(arguments)
        } catch {
            CLI.printError("lerix-mock adapter-check: \(error)\n\n\(usage)")
            return 2
        }
        if parsed.flag("--schema") {
            do {
                CLI.printData(try AdapterConformance.schema().document.serializedString)
                return 0
            } catch {
                CLI.printError("lerix-mock adapter-check: \(error)")
                return 1
            }
        }
        guard parsed.positional.count == 1, let command = parsed.positional.first else {
            CLI.printError(
                "lerix-mock adapter-check: give the adapter's command as one argument, e.g. \"node my-adapter.js\"\n\n\(usage)"
            )
            return 2
        }
        var options = SubprocessAdapter.Options()
        do {
            if let seconds = try parsed.budgetSeconds("--adapter-timeout") { options.commandTimeout = seconds }
            if let seconds = try parsed.budgetSeconds("--exit-timeout") { options.exitTimeout = seconds }
        } catch {
            CLI.printError("lerix-mock adapter-check: \(error)")
            return 2
        }
        do {
            // The closing line says how much of the bundled suite the adapter will run.
            let folder = parsed.value("--scenarios") ?? "Scenarios"
            let scenarios = (try? ScenarioSuite.load(paths: [folder]))?.scenarios
            if parsed.value("--scenarios") != nil, scenarios?.isEmpty ?? true {
                CLI.printError("lerix-mock adapter-check: --scenarios: no scenario files in \(folder)")
                return 2
            }
            let report = try AdapterConformance(
                command: command,
                options: options,
                scenarios: scenarios?.isEmpty == false ? scenarios : nil
            ).run()
            CLI.printOut(report.text)
            return report.passed ? 0 : 1
        } catch {
            CLI.printError("lerix-mock adapter-check: \(error)")
            return 1
        }
    }
}
