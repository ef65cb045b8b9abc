/// How one scenario ended, with what a person needs to act on a failure.
public struct ScenarioOutcome: Sendable {
    public enum Status: Sendable, Equatable {
        case passed
        /// A step did not do what the scenario says: a verdict on the SDK or server.
        case failed
        /// The scenario could not run: its file does not parse, or its server or adapter
        /// could not be set up. No verdict, and never green (JUnit's `<error>`).
        case error
        case skipped(String)
    }

    public var scenario: String
    public var file: String
    public var status: Status
    /// The failure report (several lines), empty when passed.
    public var failure: String
    /// The step that failed, for JUnit's message attribute.
    public var failureSummary: String
    /// Virtual time covered, in milliseconds.
    public var virtualMilliseconds: Int64
    public var wallSeconds: Double
    /// What happened, step by step (`-v`).
    public var log: [String]
    public var covers: [String]
    public var tags: [String]
    /// The run over virtual time, when an HTML report was asked for (``SuiteOptions/recordTimelines``).
    public var timeline: ScenarioTimeline? = nil
    /// Checks the server answered during the scenario (its journal since set-up), for rates.
    public var checks: Int = 0
    /// Every step as written, with how far the run got (`--json`).
    public var steps: [StepRecord] = []
    /// The step that failed, with expected vs seen (`--json`, `--markdown`); nil unless failed.
    public var failedStep: FailedStep? = nil
    /// For a skip: each capability the adapter lacks, with the spec's reason where it gives one
    /// ("push (web pages receive no silent push)"), so reports can group skips by reason.
    public var skippedFor: [String] = []
    /// Where the scenario sits in the whole run (files in error first, then scenarios in file
    /// order), before any shard, rerun or worker picks from it: merged shards sort by it.
    public var position: Int = 0

    /// One step of the scenario and what became of it.
    public struct StepRecord: Sendable, Equatable {
        public enum Status: String, Sendable {
            case passed
            case failed
            /// After a failed step, or in a scenario skipped or in error.
            case notRun = "not_run"
        }
        public var text: String
        public var location: String
        public var status: Status
        /// Virtual milliseconds since time 0 when the step started; nil when it did not run.
        public var startedAt: Int64?

        public init(text: String, location: String, status: Status = .notRun, startedAt: Int64? = nil) {
            self.text = text
            self.location = location
            self.status = status
            self.startedAt = startedAt
        }
    }

    /// The failing step as the report reads it.
    public struct FailedStep: Sendable, Equatable {
        /// 1-based.
        public var number: Int
        public var text: String
        public var location: String
        /// Virtual milliseconds since time 0.
        public var at: Int64
        /// "expected …, seen …", as the runner reports it.
        public var message: String

        public init(number: Int, text: String, location: String, at: Int64, message: String) {
            self.number = number
            self.text = text
            self.location = location
            self.at = at
            self.message = message
        }
    }

    /// The statuses as results files and reports spell them.
    public var statusName: String {
        switch status {
        case .passed: return "passed"
        case .failed: return "failed"
        case .error: return "error"
        case .skipped: return "skipped"
        }
    }

    public var skipReason: String? {
        if case .skipped(let why) = status { return why }
        return nil
    }
}
