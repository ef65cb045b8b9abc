import AdapterProtocol
import Foundation
import JSON
import Randomness
import ScenarioLanguage

/// Runs a folder (or list) of scenario files: parse them all, pick by `--filter`/`--tag`,
/// skip what the adapter cannot emulate, run the rest one by one in virtual time.
///
/// ```swift
/// let suite = try ScenarioSuite.load(paths: ["Scenarios"])
/// let result = SuiteRunner(options: SuiteOptions()).run(suite, in: environment)
/// print(result.summary)     // "28 passed, 0 failed, 0 skipped"
/// ```
public struct SuiteOptions: Sendable {
    public var filter: String?
    public var tags: [String]
    public var seed: UInt64
    public var verbose: Bool
    /// Sample each run into a ``ScenarioTimeline`` (for `--html`).
    public var recordTimelines = false
    /// Called with each outcome as it completes (for live output).
    public var progress: (@Sendable (ScenarioOutcome) -> Void)?
    /// `--shuffle SEED`: run the selected scenarios in an order drawn from this seed (SplitMix64,
    /// so a seed replays its order). Verdicts must not depend on it: each scenario starts at its
    /// own time 0 in a world of its own.
    public var shuffleSeed: UInt64?
    /// `--shard I/N`: only this shard's part of the selection (``ShardPlan``).
    public var shard: Shard?
    /// `--timings FILE`: earlier wall times by scenario name, to balance shards.
    public var timings: [String: Double] = [:]
    /// `--failed-from FILE`: only these scenario names (or files in error); nil for all.
    public var only: Set<String>?
    /// `--jobs N`: scenarios run on N workers side by side when the environment's worlds share
    /// nothing (``ScenarioEnvironment/worldsAreIndependent``), else one at a time. Outcomes are
    /// reported in the serial order either way.
    public var jobs = 1

    public init(
        filter: String? = nil,
        tags: [String] = [],
        seed: UInt64 = 1,
        verbose: Bool = false,
        progress: (@Sendable (ScenarioOutcome) -> Void)? = nil
    ) {
        self.filter = filter
        self.tags = tags
        self.seed = seed
        self.verbose = verbose
        self.progress = progress
    }
}

public struct SuiteResult: Sendable {
    public var outcomes: [ScenarioOutcome]
    /// The adapter's `hello` name and version, joined ("lerix-web-sdk 0.3.0").
    public var adapterName: String
    /// The same, apart (results files, the conformance matrix).
    public var adapter = AdapterIdentity()
    /// Scenarios and files in error of the whole selection, before a shard or rerun picked from it.
    public var planned = 0
    /// The shard this run was, when sharded.
    public var shard: Shard?

    public init(outcomes: [ScenarioOutcome], adapterName: String) {
        self.outcomes = outcomes
        self.adapterName = adapterName
    }

    public var passed: Int { outcomes.filter { $0.status == .passed }.count }
    public var failed: Int { outcomes.filter { $0.status == .failed }.count }
    /// Files that do not parse and scenarios that could not be set up.
    public var errors: Int { outcomes.filter { $0.status == .error }.count }
    public var skipped: Int {
        outcomes.filter { if case .skipped = $0.status { return true } else { return false } }.count
    }
    /// Nothing failed, nothing was in error, and something ran: a run whose every scenario was
    /// skipped (an adapter that emulates none of them) tested nothing, so it is not green.
    public var succeeded: Bool { failed == 0 && errors == 0 && (passed > 0 || outcomes.isEmpty) }
    /// `--no-skips`: green only when every scenario ran, none skipped (CI of an adapter that must
    /// emulate the whole suite).
    public var succeededWithoutSkips: Bool { succeeded && skipped == 0 }
    /// Why a `--no-skips` run is not green although nothing failed, or nil.
    public var skipProblem: String? {
        guard failed == 0, errors == 0, skipped > 0 else { return nil }
        let names = outcomes.filter { if case .skipped = $0.status { return true } else { return false } }.prefix(3).map
        { "'\($0.scenario)'" }
        return
            "\(skipped) scenario\(skipped == 1 ? " was" : "s were") skipped (\(names.joined(separator: ", "))\(skipped > 3 ? ", …" : "")) and --no-skips wants every one to run"
    }
    /// Why a run without failures is still not green, or nil.
    public var nothingRan: String? {
        guard failed == 0, errors == 0, passed == 0, skipped > 0 else { return nil }
        return "no scenario ran: all \(skipped) selected were skipped"
    }
    /// Checks the server answered over every scenario that ran.
    public var checks: Int { outcomes.reduce(0) { $0 + $1.checks } }
    public var summary: String {
        "\(passed) passed, \(failed) failed, " + (errors > 0 ? "\(errors) error\(errors == 1 ? "" : "s"), " : "")
            + "\(skipped) skipped"
    }
}

public struct SuiteRunner: Sendable {
    public var options: SuiteOptions

    public init(options: SuiteOptions) { self.options = options }

    public func run(_ suite: ScenarioSuite, in environment: any ScenarioEnvironment) -> SuiteResult {
        var outcomes: [ScenarioOutcome] = []
        func emit(_ outcome: ScenarioOutcome) {
            outcomes.append(outcome)
            options.progress?(outcome)
        }
        var plan = SuitePlan(suite: suite, options: options)
        var result = SuiteResult(outcomes: [], adapterName: "")
        result.planned = plan.planned
        result.shard = options.shard
        for (position, broken) in plan.brokenFiles {
            var outcome = Self.broken(file: broken)
            outcome.position = position
            emit(outcome)
        }
        guard !plan.scenarios.isEmpty else {
            result.outcomes = outcomes
            return result
        }
        // Shuffled after the shard is picked: the split stays the same on every machine.
        if let seed = options.shuffleSeed { plan.scenarios = Self.shuffled(plan.scenarios, seed: seed) }
        let abilities: AdapterAbilities
        do {
            abilities = try AdapterAbilities(hello: try environment.hello())
        } catch {
            for (position, s) in plan.scenarios {
                var outcome = Self.broken(s, "the adapter did not answer hello: \(error)")
                outcome.position = position
                emit(outcome)
            }
            result.outcomes = outcomes
            return result
        }
        result.adapter = abilities.identity
        result.adapterName = abilities.name
        let planned = plan.scenarios.map { (position: $0.position, plan: abilities.plan($0.scenario)) }
        let workers = environment.worldsAreIndependent ? min(max(1, options.jobs), planned.count) : 1
        if workers <= 1 {
            for item in planned {
                var outcome = outcome(of: item.plan, in: environment)
                outcome.position = item.position
                emit(outcome)
            }
        } else {
            let shared = SharedEnvironment(environment)
            let runner = self
            // Longest first (by --timings), so no worker is left with a long scenario at the end.
            let startOrder = planned.indices.sorted { a, b in
                let ta = options.timings[Self.name(of: planned[a].plan)] ?? 0
                let tb = options.timings[Self.name(of: planned[b].plan)] ?? 0
                return ta != tb ? ta > tb : a < b
            }
            OrderedWorkers.run(
                count: planned.count,
                workers: workers,
                startOrder: startOrder,
                work: { index in runner.outcome(of: planned[index].plan, in: shared.environment) }
            ) { index, outcome in
                var outcome = outcome
                outcome.position = planned[index].position
                emit(outcome)
            }
        }
        result.outcomes = outcomes
        return result
    }

    /// A skip as planned, or the scenario run in a world of its own.
    func outcome(of plan: AdapterAbilities.Plan, in environment: any ScenarioEnvironment) -> ScenarioOutcome {
        switch plan {
        case .skip(let skipped): return skipped
        case .run(let scenario): return isolatedRun(of: scenario, in: environment)
        }
    }

    static func name(of plan: AdapterAbilities.Plan) -> String {
        switch plan {
        case .skip(let skipped): return skipped.scenario
        case .run(let scenario): return scenario.name
        }
    }

    /// One scenario in a world of its own: the environment builds it fresh (a server reset to
    /// time 0, a new adapter with no devices, an empty push gateway and storage folder), the
    /// scenario runs, the world is closed. Nothing carries over to the next scenario, so this is
    /// the unit that runs in any order, or side by side when the environment's worlds are
    /// independent (``ScenarioEnvironment/worldsAreIndependent``).
    public func isolatedRun(of scenario: Scenario, in environment: any ScenarioEnvironment) -> ScenarioOutcome {
        let started = DispatchTime.now().uptimeNanoseconds
        var outcome: ScenarioOutcome
        do {
            let world = try environment.makeWorld(for: scenario)
            let execution = ScenarioExecution(
                scenario: scenario,
                world: world,
                seed: options.seed,
                verbose: options.verbose
            )
            if options.recordTimelines { execution.recorder = TimelineRecorder(scenario: scenario) }
            outcome = execution.run()
            world.close()
            WorldReclaimer.takeApart(consume world, consume execution)
        } catch {
            outcome = Self.broken(scenario, "could not start the scenario's server and adapter: \(error)")
        }
        outcome.wallSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return outcome
    }

    /// A file that does not parse: an error with every mistake in it.
    static func broken(file broken: ScenarioFileErrors) -> ScenarioOutcome {
        let count = broken.errors.count
        return ScenarioOutcome(
            scenario: broken.file,
            file: broken.file,
            status: .error,
            failure: broken.errors.map { "  \($0)" }.joined(separator: "\n"),
            failureSummary: "\(count) mistake\(count == 1 ? "" : "s") in the file, first: \(broken.errors[0])",
            virtualMilliseconds: 0,
            wallSeconds: 0,
            log: [],
            covers: [],
            tags: []
        )
    }

    /// `scenarios` in the order `seed` draws (Fisher–Yates over the runner's SplitMix64), the
    /// same order for the same seed and list on every machine.
    public static func shuffled<Element>(_ scenarios: [Element], seed: UInt64) -> [Element] {
        var out = scenarios
        var rng = SplitMix64(seed: seed, salt: "shuffle")
        guard out.count > 1 else { return out }
        for i in stride(from: out.count - 1, to: 0, by: -1) {
            let j = rng.below(i + 1)
            out.swapAt(i, j)
        }
        return out
    }

    /// The scenario could not run (no adapter, no world): an error, not a verdict.
    static func broken(_ s: Scenario, _ message: String) -> ScenarioOutcome {
        ScenarioOutcome(
            scenario: s.name,
            file: s.file,
            status: .error,
            failure: message.isEmpty ? "" : "  \(message)",
            failureSummary: message,
            virtualMilliseconds: 0,
            wallSeconds: 0,
            log: [],
            covers: s.covers,
            tags: s.tags,
            steps: s.steps.map { .init(text: $0.text, location: $0.location.description) }
        )
    }
}

/// An environment whose worlds share nothing (``ScenarioEnvironment/worldsAreIndependent``),
/// handed to `--jobs` workers: each builds and closes worlds of its own through it, and such an
/// environment keeps no state that a world's making changes (in process, loopback).
private final class SharedEnvironment: @unchecked Sendable {
    let environment: any ScenarioEnvironment
    init(_ environment: any ScenarioEnvironment) { self.environment = environment }
}
