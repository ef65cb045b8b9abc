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
}
