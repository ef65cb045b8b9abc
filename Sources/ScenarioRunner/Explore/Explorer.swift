import Dispatch
import JSON
import ScenarioLanguage

/// `lerix-mock explore`: draws histories, has each judged, shrinks each new kind of failure to
/// a smallest history and writes it as a scenario file that fails on the SDK under test and
/// passes on the reference (both checked by running the written file).
///
/// ```swift
/// let explorer = Explorer(judge: judge, options: .init(seed: 1, runs: 500, targets: [("web", "native")]))
/// let result = explorer.run()
/// result.findings.count
/// ```
public final class Explorer {
    public struct Options {
        public var seed: UInt64 = 1
        /// Histories to draw; nil with `seconds`: as many as fit.
        public var runs: Int? = 100
        public var seconds: Double? = nil
        /// Only this history (`--replay SEED:RUN`).
        public var replay: Int? = nil
        /// Platform and flavor per run, cycled.
        public var targets: [(platform: String, flavor: String)] = [("web", "native")]
        public var capabilities: Set<String> = []
        public var steps = 30
        public var shrink = true
        public var shrinkBudget = 400
        /// Stop after this many distinct findings whose file was verified (nil: never). One that
        /// did not reproduce (a flake of a loaded machine, a timing the file cannot pin) is
        /// reported but does not count, so the run goes on to one that does.
        public var maxFindings: Int? = nil
        /// Words for the written files' comments: the command line, the reference.
        public var command = "lerix-mock explore"
        public var referenceName = "the spec property"
        public var progress: ((String) -> Void)? = nil
        public init() {}
    }

    /// One kind of failure (one judge signature), shrunk once.
    public struct Found {
        public var finding: Finding
        public var original: History
        public var shrunk: History
        public var file: String
        public var shrinkRuns: Int
        /// Histories (of all drawn) that failed this way.
        public var occurrences: Int
        /// The written file run as a scenario: fails on the SDK under test, passes on the
        /// reference. Nil when verified; else why not.
        public var unverified: String?
        public var wallSeconds: Double
    }

    public struct Result {
        public var histories = 0
        public var harnessErrors: [(history: String, reason: String)] = []
        public var found: [Found] = []
        public var wallSeconds = 0.0
        public var subjectName = ""
        public var referenceName = ""
        public var findings: Int { found.count }
        public var historiesPerSecond: Double { wallSeconds > 0 ? Double(histories) / wallSeconds : 0 }
    }

    let judge: HistoryJudge
    let options: Options

    public init(judge: HistoryJudge, options: Options) {
        self.judge = judge
        self.options = options
    }

    public func run() -> Result {
        var result = Result()
        let started = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }
        var index: [String: Int] = [:]
        var run = options.replay ?? 0
        while true {
            if options.replay != nil, result.histories == 1 { break }
            if options.replay == nil {
                if let runs = options.runs, run >= runs { break }
                if let seconds = options.seconds, elapsed() >= seconds { break }
                if let cap = options.maxFindings, result.found.filter({ $0.unverified == nil }).count >= cap { break }
            }
            let target = options.targets[run % options.targets.count]
            let generator = HistoryGenerator(
                platform: target.platform,
                flavor: target.flavor,
                capabilities: options.capabilities,
                steps: options.steps
            )
            let history = generator.history(seed: options.seed, run: run)
            let outcome = judge.verdict(history)
            result.histories += 1
            run += 1
            if let error = outcome.harnessError {
                result.harnessErrors.append(("\(history.seed):\(history.run)", error))
                continue
            }
            guard let finding = outcome.finding else { continue }
            if let known = index[finding.signature] {
                result.found[known].occurrences += 1
                continue
            }
            options.progress?("history \(history.seed):\(history.run): \(finding.judge): \(finding.message)")
            let t = DispatchTime.now().uptimeNanoseconds
            var shrunk = Shrinker.Result(history: history, finding: finding, tried: 0)
            if options.shrink {
                var shrinker = Shrinker(judge: judge)
                shrinker.budget = options.shrinkBudget
                shrunk = shrinker.shrink(history, failing: finding)
            }
            shrunk.finding.covers = Array(
                Set(shrunk.finding.covers + DifferentialJudge.rows(of: shrunk.history))
            ).sorted()
            let file = HistoryFile.text(
                shrunk.history,
                finding: shrunk.finding,
                judgedBy: options.referenceName,
                command: options.command
            )
            let unverified = verify(file, name: "\(history.seed):\(history.run)")
            var found = Found(
                finding: shrunk.finding,
                original: history,
                shrunk: shrunk.history,
                // A file that is not yet a regression test says so in its first lines.
                file: unverified.map { HistoryFile.unverifiedHeader($0) + file } ?? file,
                shrinkRuns: shrunk.tried,
                occurrences: 1,
                unverified: unverified,
                wallSeconds: 0
            )
            found.wallSeconds = Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
            options.progress?(
                "  shrunk to \(shrunk.history.moves.count) moves in \(shrunk.tried) runs"
                    + (found.unverified.map { "; NOT verified: \($0)" }
                        ?? "; the file fails on the SDK under test and passes on the reference")
            )
            index[finding.signature] = result.found.count
            result.found.append(found)
        }
        result.wallSeconds = elapsed()
        return result
    }

    /// Runs the written file as the `scenarios` command would: it must parse, fail on the SDK
    /// under test, and pass on the reference (when there is one). Nil when all three hold.
    func verify(_ text: String, name: String) -> String? {
        let scenario: Scenario
        do {
            scenario = try Scenario.parse(Array(text.utf8), file: "explore-\(name).yaml")
        } catch {
            return "the written file does not parse: \(error)"
        }
        let onSubject = Self.outcome(of: scenario, in: judge.subject)
        guard onSubject.status == .failed else {
            return
                "it \(onSubject.status == .passed ? "passes" : "errs") on the SDK under test \(onSubject.failureSummary)"
        }
        if let reference = judge.reference {
            let onReference = Self.outcome(of: scenario, in: reference)
            guard onReference.status == .passed else {
                return "it fails on the reference too: \(onReference.failureSummary)"
            }
        }
        return nil
    }

    /// The written file as `scenarios` runs it: a world of its own (issue 38's isolated unit).
    static func outcome(of scenario: Scenario, in environment: any ScenarioEnvironment) -> ScenarioOutcome {
        SuiteRunner(options: SuiteOptions()).isolatedRun(of: scenario, in: environment)
    }
}
