import Foundation
import POSIX
import ScenarioRunner

/// What `scenarios` reads to pick its part of a run: the shard (`--shard`, else Bazel's or
/// GitLab's variables), `--timings` to balance shards, `--failed-from` to rerun failures.
struct RunSelection {
    var shard: Shard?
    /// Where the shard came from, for the console ("--shard 2/3", "TEST_SHARD_INDEX=1").
    var shardSource = ""
    var timings: [String: Double] = [:]
    var only: Set<String>?
    /// What `--failed-from` found, for the console.
    var rerunNote = ""

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    init(_ parsed: ArgumentParser.Parsed, environment: [String: String]) throws(Problem) {
        do {
            if let text = parsed.value("--shard") {
                shard = try Shard.parse(text)
                shardSource = "--shard \(text)"
            } else if let fromEnvironment = try Shard.fromEnvironment(environment) {
                shard = fromEnvironment
                shardSource =
                    environment["TEST_TOTAL_SHARDS"] != nil
                    ? "TEST_SHARD_INDEX=\(environment["TEST_SHARD_INDEX"] ?? "") of TEST_TOTAL_SHARDS=\(environment["TEST_TOTAL_SHARDS"] ?? "")"
                    : "CI_NODE_INDEX=\(environment["CI_NODE_INDEX"] ?? "") of CI_NODE_TOTAL=\(environment["CI_NODE_TOTAL"] ?? "")"
            }
        } catch {
            throw Problem(description: error.description)
        }
        if let file = parsed.value("--timings") {
            let document = try Self.read(file, option: "--timings")
            for run in document.runs {
                for outcome in run.result.outcomes where outcome.wallSeconds > 0 {
                    timings[outcome.scenario] = max(timings[outcome.scenario] ?? 0, outcome.wallSeconds)
                }
            }
        }
        if let file = parsed.value("--failed-from") {
            let document = try Self.read(file, option: "--failed-from")
            var names = Set<String>()
            for run in document.runs {
                for outcome in run.result.outcomes where outcome.status == .failed || outcome.status == .error {
                    names.insert(outcome.scenario)
                }
            }
            only = names
            rerunNote =
                names.isEmpty
                ? "nothing failed or was in error in \(file): nothing to rerun"
                : "rerunning the \(names.count) scenario\(names.count == 1 ? "" : "s") that failed or were in error in \(file)"
        }
    }

    static func read(_ file: String, option: String) throws(Problem) -> ResultDocument {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw Problem(description: "\(option): cannot read \(file)")
        }
        do {
            return try ResultDocument.parse(Array(data), file: file)
        } catch {
            throw Problem(description: "\(option): \(error.description)")
        }
    }

    /// Bazel asks a test that understands sharding to touch this file.
    static func touchShardStatusFile(_ environment: [String: String]) -> String? {
        guard let path = environment["TEST_SHARD_STATUS_FILE"], !path.isEmpty else { return nil }
        do {
            try Posix.touch(path)
            return nil
        } catch {
            return "cannot touch TEST_SHARD_STATUS_FILE \(path): \(error.reason)"
        }
    }
}
