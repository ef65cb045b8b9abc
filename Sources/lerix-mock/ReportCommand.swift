import Foundation
import ScenarioRunner

/// `lerix-mock report merge FILE…`: results files (`scenarios --json`) into one report.
enum ReportCommand: CLICommand {
    static let name = "report"
    static let summary = "merge results files (shards, reruns, several SDKs) into one report"
    static let usage = """
        usage: lerix-mock report merge FILE.json… [--json F] [--junit F] [--html F] [--markdown F]

        Reads results files written by `lerix-mock scenarios --json` and writes one report.
        Runs of the same adapter (its hello name and version) become one run: the shards of a
        split run together (every shard's file once; the shards' --shard I/N counted from 1,
        or Bazel's TEST_SHARD_INDEX from 0, are all recorded 1-based), in the unsharded run's
        order, so the merged counts and verdicts are the unsharded run's. A rerun's file
        (`scenarios --failed-from`) replaces the verdicts of what it reran. Runs of different
        adapters stay apart, and the HTML and Markdown reports show them side by side as the
        conformance matrix: each spec row × SDK passed, failed or skipped (with the spec's reason).

          --json FILE        the merged results (the same format; merge again or --failed-from)
          --junit FILE       JUnit XML: one <testsuite> per adapter
          --html FILE        one page: the matrix (several adapters) and every scenario's timeline
          --markdown FILE    a summary for a pull request or $GITHUB_STEP_SUMMARY

        Exit status: 0 when every merged run is green and whole, 1 when a scenario failed or was
        in error, a run had nothing but skips, or a shard is missing, 2 for bad usage or a file
        that cannot be read or merged (the same scenario in two shards' files, shards of
        different splits, another spec catalogue).
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.first == "merge" else {
            CLI.printError(
                "lerix-mock report: \(arguments.first.map { "unknown subcommand '\($0)'" } ?? "which one?") (report merge is the one there is)\n\n\(usage)"
            )
            return 2
        }
        let parser = ArgumentParser(valued: ["--json", "--junit", "--html", "--markdown"])
        let parsed: ArgumentParser.Parsed
        do {
            parsed = try parser.parse(Array(arguments.dropFirst()))
        } catch {
            CLI.printError("lerix-mock report merge: \(error)\n\n\(usage)")
            return 2
        }
        guard !parsed.positional.isEmpty else {
            CLI.printError("lerix-mock report merge: name the results files to merge\n\n\(usage)")
            return 2
        }
        let reports = ReportOutputs(parsed)
        if let problem = reports.problem() {
            CLI.printError("lerix-mock report merge: \(problem)")
            return 2
        }
        var files: [(file: String, document: ResultDocument)] = []
        for file in parsed.positional {
            do {
                files.append((file, try RunSelection.read(file, option: "report merge")))
            } catch {
                CLI.printError("lerix-mock \(error)")
                return 2
            }
        }
        let merged: ResultMerge.Merged
        do {
            merged = try ResultMerge.merge(files, tool: Version.tool)
        } catch {
            CLI.printError("lerix-mock report merge: \(error)")
            return 2
        }
        for run in merged.document.runs {
            let shards =
                run.shards.isEmpty ? "" : " (shards " + run.shards.map(\.description).joined(separator: ", ") + ")"
            CLI.printOut(
                "\(run.result.adapterName.isEmpty ? run.mode.rawValue : run.result.adapterName)\(shards): \(run.result.summary)"
            )
        }
        for problem in merged.incomplete { CLI.printError("lerix-mock report merge: \(problem)") }
        if let problem = reports.write(merged.document) {
            CLI.printError("lerix-mock report merge: \(problem)")
            return 2
        }
        let green = merged.document.runs.allSatisfy(\.result.succeeded) && merged.incomplete.isEmpty
        return green ? 0 : 1
    }
}
