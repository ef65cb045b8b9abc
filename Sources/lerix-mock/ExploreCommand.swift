import AdapterProtocol
import Foundation
import JSON
import ScenarioRunner

/// `lerix-mock explore`: random histories against an SDK, judged against a reference SDK and
/// the spec's properties; each kind of failure shrunk to a scenario file.
enum ExploreCommand: CLICommand {
    static let name = "explore"
    static let summary = "find SDK bugs no scenario covers: random histories, two judges, shrunk scenario files"
    static let usage = """
        usage: lerix-mock explore [OPTIONS]

        Draws random valid histories from the scenario vocabulary (rules of every type created,
        edited and deleted, lift-all, time moves of seconds to days, app events, network,
        installs, device clock changes, Later and Skip, faults), runs each against a fresh
        server on the SDK under test and judges it twice: against a reference SDK running the
        same history on an identical server (state and checks after every move), and against
        the spec's properties (Scenarios/spec-catalogue.yaml rows). Each new kind of failure is
        shrunk to a smallest history and written as a scenario file that fails on the SDK under
        test and passes on the reference.

          --adapter "CMD"    the SDK under test, through the adapter protocol (default: the
                             built-in Swift SDK, judged by the properties alone)
          --reference "CMD"  the reference SDK's adapter (default with --adapter: the built-in
                             Swift SDK emulating the same platform and flavor; `builtin` names
                             it explicitly, e.g. to compare the built-in SDK with itself)
          --seed N           the seed (default 1); same seed, same histories
          --runs N           histories to draw (default 100)
          --time D           draw histories for this long instead (`60s`, `5m`)
          --replay SEED:RUN  run, judge and shrink that one history only
          --platform P       \(AdapterVocabulary.platforms.joined(separator: ", ")) or all (repeatable; default: every
                             platform the SDK under test emulates, cycled over the runs)
          --flavor F         native or flutter (default: native, and flutter too when the SDK
                             under test emulates it)
          --steps N          moves per history (default 30)
          --out DIR          write each shrunk scenario file into DIR
          --junit FILE       also write a JUnit XML report (one test case per finding)
          --json             print the result as JSON instead of the summary
          --no-shrink        write the failing histories whole
          --shrink-budget N  candidate histories tried per shrink at most (default 400)
          --max-findings N   stop after N distinct findings whose file was verified
          --adapter-timeout S  seconds an adapter may take to answer one command (default 5)
          -v                 print each finding as it is found and shrunk

        Exit status: 0 when no history failed, 1 when one did (or could not run), 2 for bad usage.
        """

    static func run(_ arguments: [String]) -> Int32 {
        let parser = ArgumentParser(
            valued: [
                "--adapter", "--reference", "--seed", "--runs", "--time", "--replay", "--platform", "--flavor",
                "--steps",
                "--out", "--junit", "--shrink-budget", "--max-findings", "--adapter-timeout",
            ],
            flags: ["--json", "--no-shrink", "-v", "--verbose"],
            repeatable: ["--platform", "--flavor"]
        )
        func usageError(_ message: String) -> Int32 {
            CLI.printError("lerix-mock explore: \(message)")
            return 2
        }
        let parsed: ArgumentParser.Parsed
        do {
            parsed = try parser.parse(arguments)
        } catch {
            return usageError("\(error)\n\n\(usage)")
        }
        guard parsed.positional.isEmpty else {
            return usageError("unexpected argument '\(parsed.positional[0])'")
        }
        var options = Explorer.Options()
        func whole(_ name: String, min: Int = 1) -> Int?? {
            guard let text = parsed.value(name) else { return .some(nil) }
            guard let n = Int(text), n >= min else { return nil }
            return .some(n)
        }
        if let text = parsed.value("--seed") {
            guard let n = UInt64(text) else { return usageError("--seed takes a whole number, not '\(text)'") }
            options.seed = n
        }
        guard let runs = whole("--runs") else { return usageError("--runs takes a whole number above 0") }
        guard let steps = whole("--steps", min: 2) else { return usageError("--steps takes a whole number above 1") }
        guard let budget = whole("--shrink-budget") else {
            return usageError("--shrink-budget takes a whole number above 0")
        }
        guard let maxFindings = whole("--max-findings") else {
            return usageError("--max-findings takes a whole number above 0")
        }
        if let runs { options.runs = runs }
        if let steps { options.steps = steps }
        if let budget { options.shrinkBudget = budget }
        options.maxFindings = maxFindings
        if let text = parsed.value("--time") {
            guard parsed.value("--runs") == nil else { return usageError("give --runs or --time, not both") }
            guard let seconds = Self.seconds(text) else {
                return usageError("--time takes a duration like 60s or 5m, not '\(text)'")
            }
            options.seconds = seconds
            options.runs = nil
        }
        if let text = parsed.value("--replay") {
            let parts = text.split(separator: ":")
            guard parts.count == 2, let seed = UInt64(parts[0]), let run = Int(parts[1]), run >= 0 else {
                return usageError("--replay takes SEED:RUN as explore prints it (e.g. 7:12), not '\(text)'")
            }
            options.seed = seed
            options.replay = run
        }
        options.shrink = !parsed.flag("--no-shrink")
        // An adapter's own logs (failed checks are the point of faults) would drown the report;
        // a failure still quotes its last lines.
        var adapterOptions = SubprocessAdapter.Options(passStderrThrough: false)
        do {
            if let seconds = try parsed.budgetSeconds("--adapter-timeout") { adapterOptions.commandTimeout = seconds }
        } catch {
            return usageError("\(error)")
        }
        let outDir = parsed.value("--out")
        if let outDir {
            do {
                try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
            } catch {
                return usageError("--out: cannot create \(outDir): \(error.localizedDescription)")
            }
        }
        let junit = parsed.value("--junit")
        if let junit, let problem = ReportFile.problem(writing: junit) { return usageError("--junit: \(problem)") }

        let adapter = parsed.value("--adapter")
        // Every history in worlds of its own (a fresh server, gateway, adapter and storage each):
        // in process, or an adapter against a fresh loopback server (LoopbackEnvironment).
        let subject: any ScenarioEnvironment =
            adapter.map { LoopbackEnvironment(adapterCommand: $0, adapterOptions: adapterOptions) }
            ?? InProcessEnvironment(viaGateway: false)
        let reference: (any ScenarioEnvironment)?
        switch parsed.value("--reference") {
        case "builtin"?: reference = InProcessEnvironment(viaGateway: false)
        case let command?: reference = LoopbackEnvironment(adapterCommand: command, adapterOptions: adapterOptions)
        case nil: reference = adapter == nil ? nil : InProcessEnvironment(viaGateway: false)
        }
        let subjectHello: JSON
        let referenceHello: JSON?
        do {
            subjectHello = try subject.hello()
            referenceHello = try reference?.hello()
        } catch {
            CLI.printError("lerix-mock explore: the adapter's hello failed: \(error)")
            return 1
        }
        var capabilities = Set((subjectHello["capabilities"]?.arrayValue ?? []).compactMap(\.stringValue))
        if let referenceHello {
            capabilities.formIntersection((referenceHello["capabilities"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
        let emulated = AdapterVocabulary.platforms.filter {
            capabilities.contains(AdapterCapability.platform($0).rawValue)
        }
        var platforms = parsed.allValues("--platform")
        if platforms.isEmpty || platforms == ["all"] { platforms = emulated }
        for p in platforms where !emulated.contains(p) {
            return usageError(
                "--platform \(p): the SDKs compared do not both emulate it (they emulate \(emulated.joined(separator: ", ")))"
            )
        }
        var flavors = parsed.allValues("--flavor")
        if flavors.isEmpty { flavors = capabilities.contains("flavor:flutter") ? ["native", "flutter"] : ["native"] }
        for f in flavors where f != "native" && !capabilities.contains("flavor:\(f)") {
            return usageError("--flavor \(f): the SDKs compared do not both emulate it")
        }
        guard !platforms.isEmpty else { return usageError("the SDK under test emulates no platform explore knows") }
        options.targets = platforms.flatMap { p in flavors.map { (p, $0) } }
        options.capabilities = capabilities
        options.command = (["lerix-mock", "explore"] + arguments.map(Self.quoted)).joined(separator: " ")
        let subjectName =
            adapter.map { "\(subjectHello["name"]?.stringValue ?? $0) (\($0))" } ?? "the built-in Swift SDK"
        let referenceName =
            reference == nil
            ? "the spec properties"
            : parsed.value("--reference").flatMap {
                $0 == "builtin" ? nil : "\(referenceHello?["name"]?.stringValue ?? $0) (\($0))"
            }
                ?? "the built-in Swift SDK"
        options.referenceName = referenceName
        let verbose = parsed.flag("-v") || parsed.flag("--verbose")
        if verbose { options.progress = { CLI.printError($0) } }

        let judge = HistoryJudge(subject: subject, reference: reference)
        var result = Explorer(judge: judge, options: options).run()
        result.subjectName = subjectName
        result.referenceName = referenceName
        if let outDir {
            for f in result.found {
                let path = (outDir as NSString).appendingPathComponent(ExploreReport.fileName(f))
                if let problem = ReportFile.write(f.file, to: path) {
                    CLI.printError("lerix-mock explore: --out: \(problem)")
                    return 2
                }
            }
        }
        if let junit, let problem = ReportFile.write(ExploreReport.junit(result), to: junit) {
            return usageError("--junit: \(problem)")
        }
        CLI.printOut(
            parsed.flag("--json") ? ExploreReport.json(result).serializedString : ExploreReport.summary(result)
        )
        return result.found.isEmpty && result.harnessErrors.isEmpty ? 0 : 1
    }

    /// `60s`, `5m`, `1h`, or a bare number of seconds.
    static func seconds(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for (unit, scale) in units where text.hasSuffix(unit) {
            guard let n = Double(text.dropLast(unit.count)), n > 0 else { return nil }
            return n * scale
        }
        guard let n = Double(text), n > 0 else { return nil }
        return n
    }

    static func quoted(_ argument: String) -> String {
        argument.contains(" ") || argument.isEmpty ? "\"\(argument)\"" : argument
    }
}
