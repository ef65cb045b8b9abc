import JSON
import ScenarioLanguage

/// Runs one history on the SDK under test (and the reference, when there is one) in fresh
/// worlds and asks both judges: the differential one first, then the spec properties.
///
/// ```swift
/// let judge = HistoryJudge(subject: InProcessEnvironment(viaGateway: false), reference: nil)
/// judge.verdict(history)     // nil: nothing found
/// ```
public final class HistoryJudge {
    public let subject: any ScenarioEnvironment
    public let reference: (any ScenarioEnvironment)?
    /// Histories run so far (each on one or two SDKs), for rates.
    public private(set) var histories = 0

    public init(subject: any ScenarioEnvironment, reference: (any ScenarioEnvironment)?) {
        self.subject = subject
        self.reference = reference
    }

    /// What one history did on each SDK, and the verdict.
    public struct Outcome {
        public var subject: HistoryTrace
        public var reference: HistoryTrace?
        public var finding: Finding?
        /// The world could not be set up, or both SDKs stopped the same way: no verdict.
        public var harnessError: String?
    }

    public func verdict(_ history: History) -> Outcome {
        histories += 1
        // One scenario for both SDKs: writing each move's text cost as much as judging them.
        let scenario = history.scenario(name: "explore \(history.seed):\(history.run)")
        let s = Self.trace(history, scenario, in: subject)
        let r = reference.map { Self.trace(history, scenario, in: $0) }
        if let error = s.setupError ?? r?.setupError ?? s.lostCheck ?? r?.lostCheck {
            return Outcome(subject: s, reference: r, finding: nil, harnessError: error)
        }
        if let r {
            if let f = DifferentialJudge.compare(history, subject: s, reference: r) {
                return Outcome(subject: s, reference: r, finding: f, harnessError: nil)
            }
            // The reference broke a property the subject broke too: a shared misreading (or a
            // property too strict); it is reported against the subject all the same.
        }
        var outcome = Outcome(subject: s, reference: r, finding: SpecProperties.check(history, s), harnessError: nil)
        if outcome.finding == nil, let stop = s.stopped {
            outcome.harnessError = "move \(stop.step + 1): \(stop.reason)"
        }
        return outcome
    }

    /// The history on one SDK in a fresh world.
    static func trace(_ history: History, in environment: any ScenarioEnvironment) -> HistoryTrace {
        trace(history, history.scenario(name: "explore \(history.seed):\(history.run)"), in: environment)
    }

    /// The history, already made a scenario, on one SDK in a fresh world.
    static func trace(
        _ history: History,
        _ scenario: Scenario,
        in environment: any ScenarioEnvironment
    )
        -> HistoryTrace
    {
        var world: ScenarioWorld
        do {
            world = try environment.makeWorld(for: scenario)
        } catch {
            var trace = HistoryTrace()
            trace.setupError = "\(error)"
            return trace
        }
        let recorder = RecordingAdapter(world.adapter)
        world.adapter = recorder
        defer { world.close() }
        let execution = ScenarioExecution(scenario: scenario, world: world, seed: history.seed, verbose: false)
        return execution.observe(recorder: recorder)
    }
}
