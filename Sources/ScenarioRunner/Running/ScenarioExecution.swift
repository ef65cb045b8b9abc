import AdapterProtocol
import AdminClient
import Clock
import JSON
import Randomness
import ScenarioLanguage

/// Runs one scenario in virtual time against a world, step by step, stopping at the first
/// step that fails.
///
/// The runner owns true time: it sets the server's manual clock and advances the devices
/// together, stopping at every device timer, every server timer and every push delivery on
/// the way, so a result never depends on how fast the machine is.
///
/// ```swift
/// let execution = ScenarioExecution(scenario: scenario, world: world, seed: 1)
/// let outcome = execution.run()     // .passed, or .failed with a report
/// ```
final class ScenarioExecution {
    let scenario: Scenario
    let world: ScenarioWorld
    var server: any ServerConnection { world.server }
    var adapter: any AdapterConnection { world.adapter }
    var rng: SplitMix64
    let verbose: Bool

    /// Time 0 of the scenario, and the true time now.
    var t0 = Instant(millisecondsSinceEpoch: 0)
    var now = Instant(millisecondsSinceEpoch: 0)
    var log: [String] = []

    var devices: [String: DeviceSpec] = [:]
    /// Each device's installed version and build (an `install` step changes them).
    var installed: [String: (version: String?, build: String?)] = [:]
    var running: Set<String> = []
    var offline: Set<String> = []
    /// How far each device's clock is off true time, in seconds (`clock_offset`, then `set_clock`).
    var clockOffsets: [String: Int64] = [:]

    /// Each device's counts as its latest finished expectation saw them (`checks: "+1"` counts
    /// from there), and as the current one sees them (``counts(of:)``).
    var previousStates: [String: JSON] = [:]
    var seenStates: [String: JSON] = [:]
    /// Whether some expectation counts from a device's previous one: only then are the counts
    /// kept (a fleet's expectations of absolute values keep nothing per device).
    let keepsCounts: Bool

    var ruleIds: [String: String] = [:]
    var ruleBodies: [String: JSON] = [:]

    var tokenOwner: [String: String] = [:]
    var policies: [String: PushPolicy] = [:]
    var pendingDeliveries: [(at: Instant, sequence: Int, device: String, push: Int)] = []
    var deliverySequence = 0
    /// Pushes that existed before time 0, left out of expectations.
    var baselinePushes: Set<Int> = []
    /// The newest push record the runner knows of (its deliveries are routed already).
    var lastPushId = 0
    /// The server's clock as last read: its next timer is a stop of `advance`.
    var serverClock: ServerClockState?
    /// Set when an HTML report is asked for: samples the run into a timeline.
    var recorder: TimelineRecorder?

    init(scenario: Scenario, world: ScenarioWorld, seed: UInt64, verbose: Bool) {
        self.scenario = scenario
        self.world = world
        self.verbose = verbose
        rng = SplitMix64(seed: seed, salt: scenario.name)
        keepsCounts = scenario.steps.contains { step in
            switch step.action {
            case .expect(let expectation), .until(let expectation, _): return expectation.countsFromPrevious
            default: return false
            }
        }
        // Sized once: a fleet's 100,000 devices would otherwise rehash each table ~17 times.
        devices.reserveCapacity(scenario.devices.count)
        installed.reserveCapacity(scenario.devices.count)
        clockOffsets.reserveCapacity(scenario.devices.count)
        for d in scenario.devices {
            devices[d.name] = d
            installed[d.name] = (d.appVersion, d.build)
            clockOffsets[d.name] = d.clockOffsetSeconds
            if let t = d.pushToken { tokenOwner[t] = d.name }
        }
    }

    /// Sets the world up, runs every step and reports.
    func run() -> ScenarioOutcome {
        var outcome = ScenarioOutcome(
            scenario: scenario.name,
            file: scenario.file,
            status: .passed,
            failure: "",
            failureSummary: "",
            virtualMilliseconds: 0,
            wallSeconds: 0,
            log: [],
            covers: scenario.covers,
            tags: scenario.tags
        )
        outcome.steps = scenario.steps.map { .init(text: $0.text, location: $0.location.description) }
        do {
            try setUp()
        } catch {
            // Not a verdict on the SDK: the scenario could not start (JUnit's <error>).
            outcome.status = .error
            outcome.failureSummary = "setting up: \(error)"
            outcome.failure =
                "  setting up the scenario failed at \(scenario.file): "
                + "\(error)".split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  ")
            outcome.log = log
            return outcome
        }
        recordTimelineStart()
        for (index, step) in scenario.steps.enumerated() {
            if verbose { log.append("\(TimeSyntax.relative(now.milliseconds(since: t0)))  \(step.text)") }
            outcome.steps[index].startedAt = now.milliseconds(since: t0)
            do {
                try perform(step)
                try settle()
                recordTimeline(after: step)
                outcome.steps[index].status = .passed
            } catch let failure as StepFailure {
                outcome.steps[index].status = .failed
                outcome.failedStep = failedStep(step, index: index, message: failure.message)
                outcome.status = .failed
                outcome.failureSummary = "step \(index + 1) (\(step.location)): \(failure.message)"
                outcome.failure = report(step: step, index: index, failure: failure)
                recordTimeline(after: step)
                recordTimelineFailure(step: step, index: index, message: failure.message)
                break
            } catch {
                outcome.steps[index].status = .failed
                outcome.failedStep = failedStep(step, index: index, message: "\(error)")
                outcome.status = .failed
                outcome.failureSummary = "step \(index + 1) (\(step.location)): \(error)"
                outcome.failure = report(
                    step: step,
                    index: index,
                    failure: StepFailure("\(error)", devices: step.action.deviceNames)
                )
                recordTimelineFailure(step: step, index: index, message: "\(error)")
                break
            }
        }
        outcome.virtualMilliseconds = now.milliseconds(since: t0)
        outcome.checks = server.checksAnswered(project: scenario.project) ?? (try? journal(for: nil).count) ?? 0
        outcome.timeline = finishTimeline()
        outcome.log = log
        return outcome
    }

    func failedStep(_ step: Step, index: Int, message: String) -> ScenarioOutcome.FailedStep {
        .init(
            number: index + 1,
            text: step.text,
            location: step.location.description,
            at: now.milliseconds(since: t0),
            message: message
        )
    }

    /// Reset, rules created more than 30 minutes before time 0 (so they are old changes),
    /// then one fresh SDK instance per device at time 0. Time 0 is the same instant for every
    /// scenario in every mode (``Environments/timeZero``): the reset puts the server's clock
    /// 31 minutes before it, whatever time the scenarios before left it at.
    func setUp() throws {
        t0 = Environments.timeZero
        let base = t0.adding(seconds: -31 * 60)
        now = base
        let reset = try server.admin(Admin.reset(now: base))
        guard reset["now"]?.stringValue.flatMap(Instant.init(rfc3339:)) == base else {
            throw ServerFailure(
                "the server did not start over at \(base.rfc3339) on `POST /admin/reset {\"now\": …}` (it answered \(reset.serializedString)): scenarios need a lerix-mock server that resets its manual clock to a time, so each starts at the same time 0"
            )
        }
        try preparePushSettings()
        try readServerClock()
        for rule in scenario.rules {
            try createRule(rule, "rule '\(rule.name)' at \(rule.location)") { answer in
                ServerFailure("creating rule '\(rule.name)' answered no id: \(answer)")
            }
        }
        try setServerClock(t0)
        now = t0
        // Set-up pushes went to no device (none exists yet): left out of what the steps see.
        try observePushes()
        for record in try pushRecords(after: 0) {
            guard let id = record["id"]?.intValue else { continue }
            baselinePushes.insert(id)
            lastPushId = max(lastPushId, id)
        }
        for d in scenario.devices {
            let storage = world.storageRoot + "/" + (d.storage ?? d.name)
            _ = try adapter.command(
                .create(
                    device: d.name,
                    now: t0,
                    config: d.config(baseURL: server.baseURL, project: scenario.project, storage: storage)
                )
            )
        }
    }

    /// The scenario's project exists and has an APNs topic and an FCM project, without which the
    /// server sends no push to the gateway (a `serve` seed need not name them); set ones stay.
    func preparePushSettings() throws {
        let existing = try server.request(Admin.project(scenario.project).settings)
        let apnsTopic = existing.json?["apns_topic"]?.stringValue == nil ? "dev.lerix.\(scenario.project)" : nil
        let fcmProject = existing.json?["fcm_project"]?.stringValue == nil ? "lerix-\(scenario.project)" : nil
        guard existing.status == 404 || apnsTopic != nil || fcmProject != nil else { return }
        let put = Admin.putProject(scenario.project, apnsTopic: apnsTopic, fcmProject: fcmProject)
        let reply = try server.request(put)
        guard (200..<300).contains(reply.status) else {
            throw ServerFailure(
                "\(put.description) answered \(reply.status): \(reply.json?["detail"]?.stringValue ?? "")"
            )
        }
    }

    /// `+2h` in a rule body becomes time 0 + 2 h.
    func resolveTimes(_ body: JSON) -> JSON { RuleSpec.resolvingTimes(body, t0: t0) }

    func setServerClock(_ t: Instant) throws(ServerFailure) {
        serverClock = try server.admin(Admin.setClock(to: t))
    }

    func note(_ line: String) {
        if verbose { log.append("\(TimeSyntax.relative(now.milliseconds(since: t0)))    \(line)") }
    }
}

extension StepAction {
    var deviceNames: [String] {
        switch self {
        case .device(_, let d), .network(let d, _), .install(let d, _, _), .track(let d, _, _), .setClock(let d, _),
            .pushDelivery(let d, _), .gatewayReject(let d, _):
            return d
        case .until(let e, _), .expect(let e): return e.devices
        default: return []
        }
    }
}
