import AdapterProtocol
import AdminClient
import Clock
import JSON
import ScenarioLanguage

/// The execution's side of the HTML report: what ``TimelineRecorder`` samples at each step.
/// Every call is a no-op without a recorder, so runs without `--html` pay nothing.
extension ScenarioExecution {
    var elapsed: Int64 { now.milliseconds(since: t0) }

    func recordTimelineStart() {
        guard let recorder else { return }
        for rule in scenario.rules {
            recorder.recordServer(
                at: 0,
                "rule \(rule.name) (\(rule.body["type"]?.stringValue?.replacingUnderscores ?? "rule")) exists from before time 0"
            )
        }
        sampleDevices()
    }

    /// After a step (also the failing one): the server action it was, offline counts, screens.
    func recordTimeline(after step: Step) {
        guard let recorder else { return }
        if let label = Self.serverLabel(step.action) { recorder.recordServer(at: elapsed, label) }
        if case .network = step.action { recorder.recordOffline(at: elapsed, offline: offline) }
        sampleDevices()
    }

    func recordTimelineFailure(step: Step, index: Int, message: String) {
        recorder?.recordFailure(
            .init(
                at: elapsed,
                step: index + 1,
                text: step.text,
                location: step.location.description,
                message: message
            )
        )
    }

    func recordTimelinePush(device: String, push: Int, outcome: ScenarioTimeline.PushOutcome) {
        recorder?.recordPush(at: elapsed, device: device, push: push, outcome: outcome)
    }

    /// Checks and sent pushes, read once from the server; then the timeline is complete.
    func finishTimeline() -> ScenarioTimeline? {
        guard let recorder else { return nil }
        if let entries = try? journal(for: nil) { recorder.recordChecks(entries, t0: t0) }
        if let listed = try? server.admin(Admin.project(scenario.project).pushes()) {
            let sent: [(at: Int64, id: Int, tokens: Int)] = listed.items.compactMap { push in
                guard let id = push["id"]?.intValue, !baselinePushes.contains(id),
                    let at = push["sent_at"]?.stringValue.flatMap(Instant.init(rfc3339:))
                else { return nil }
                let tokens = (push["tokens"]?.objectValue ?? JSONObject()).reduce(0) { $0 + ($1.value.intValue ?? 0) }
                return (at.milliseconds(since: t0), id, tokens)
            }
            recorder.recordPushesSent(sent)
        }
        recorder.finish(duration: max(elapsed, recorder.timeline.failure?.at ?? 0))
        return recorder.timeline
    }

    private func sampleDevices() {
        guard let recorder else { return }
        for lane in 0..<recorder.laneCount {
            var counts: [String: Int] = [:]
            for name in recorder.sample(lane: lane) {
                if let d = devices[name] {
                    let current = installed[name] ?? (d.appVersion, d.build)
                    recorder.recordClass(
                        TimelineRecorder.classKey(
                            platform: d.platform,
                            version: current.version,
                            build: current.build,
                            sdk: d.sdk,
                            sdkVersion: d.sdkVersion
                        ),
                        device: name
                    )
                }
                let screen = (try? adapter.deviceState(name))?["screen"]?.stringValue ?? "unknown"
                counts[screen, default: 0] += 1
            }
            recorder.recordScreens(at: elapsed, lane: lane, counts: counts)
        }
    }

    /// What a step did to the server, in a few words; nil for device, time and expectation steps.
    static func serverLabel(_ action: StepAction) -> String? {
        switch action {
        case .createRule(let rule):
            let type = rule.body["type"]?.stringValue?.replacingUnderscores ?? "rule"
            return rule.expectRejected ? "rule \(rule.name) refused (\(type))" : "create \(type) \(rule.name)"
        case .updateRule(let update):
            return update.expectRejected ? "update of rule \(update.name) refused" : "update rule \(update.name)"
        case .deleteRule(let name): return "delete rule \(name)"
        case .liftAll: return "lift all"
        case .fault(let body): return "arm fault \(body["kind"]?.stringValue ?? "")"
        case .clearFaults: return "clear faults"
        case .addPushToken(let token, _): return "register token \(token)"
        case .deletePushToken(let token): return "delete token \(token)"
        case .gatewayReject(let devices, let status):
            return "gateway answers \(status.map(String.init) ?? "app gone") for \(devices.joined(separator: ", "))"
        default: return nil
        }
    }
}

extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
