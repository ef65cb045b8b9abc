import Clock
import JSON
import ScenarioLanguage

/// Collects a ``ScenarioTimeline`` while a scenario runs (only when an HTML report is asked
/// for): screen states and offline counts after every step, server actions, push
/// deliveries; checks and sent pushes are read from the server once at the end.
///
/// Large fleets are sampled: at most ``samplesPerLane`` devices of a group are asked for
/// their state, so a 1,000-device scenario costs a few hundred `state` commands per step.
final class TimelineRecorder {
    static let samplesPerLane = 40

    private(set) var timeline = ScenarioTimeline()
    /// Lane index of every device.
    private var laneOf: [String: Int] = [:]
    private var members: [[String]] = []
    /// Device attribute classes seen (platform, version, build, sdk, sdk_version) → lanes,
    /// so the server's journal lines find their lanes even after an `install` step.
    private var lanesOfClass: [String: Set<Int>] = [:]

    init(scenario: Scenario) {
        var assigned = Set<String>()
        // Groups (matrix and fleet entries) of several devices are one lane each; `all` is not a lane.
        let groups = scenario.groups.filter { $0.key != "all" && $0.value.count > 1 }
            .sorted {
                ($0.value.first.flatMap { n in scenario.devices.firstIndex { $0.name == n } } ?? 0)
                    < ($1.value.first.flatMap { n in scenario.devices.firstIndex { $0.name == n } } ?? 0)
            }
        var lanes: [(name: String, devices: [String])] = []
        for (name, devices) in groups {
            let fresh = devices.filter { !assigned.contains($0) }
            guard fresh.count > 1 else { continue }
            lanes.append((name, fresh))
            assigned.formUnion(fresh)
        }
        for device in scenario.devices where !assigned.contains(device.name) {
            lanes.append((device.name, [device.name]))
        }
        // Keep the file's order: a lane sits where its first device was written.
        let position = Dictionary(scenario.devices.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        lanes.sort { (position[$0.devices[0]] ?? 0) < (position[$1.devices[0]] ?? 0) }
        let specs = Dictionary(scenario.devices.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for (index, lane) in lanes.enumerated() {
            for device in lane.devices { laneOf[device] = index }
            members.append(lane.devices)
            let platforms = Set(lane.devices.compactMap { specs[$0]?.platform }).sorted().joined(separator: ", ")
            let summary: String
            if lane.devices.count == 1, let d = specs[lane.devices[0]] {
                summary =
                    "\(d.platform) \(d.appVersion ?? "no version")" + (d.flavor == "native" ? "" : " (\(d.flavor))")
            } else {
                summary = "\(lane.devices.count) devices: \(platforms)"
            }
            timeline.lanes.append(
                ScenarioTimeline.Lane(name: lane.name, summary: summary, deviceCount: lane.devices.count)
            )
        }
        if lanes.contains(where: { $0.devices.count > Self.samplesPerLane }) {
            timeline.sampledPerLane = Self.samplesPerLane
        }
    }

    /// The devices whose state stands for a lane: all of a small one, an even spread of a large one.
    func sample(lane: Int) -> [String] {
        let devices = members[lane]
        guard devices.count > Self.samplesPerLane else { return devices }
        return (0..<Self.samplesPerLane).map { devices[$0 * devices.count / Self.samplesPerLane] }
    }

    var laneCount: Int { members.count }

    func recordScreens(at ms: Int64, lane: Int, counts: [String: Int]) {
        if let last = timeline.lanes[lane].screens.last, last.counts == counts { return }
        timeline.lanes[lane].screens.append((ms, counts))
    }

    func recordOffline(at ms: Int64, offline: Set<String>) {
        for lane in 0..<members.count {
            let count = members[lane].filter(offline.contains).count
            if (timeline.lanes[lane].offline.last?.count ?? 0) != count {
                timeline.lanes[lane].offline.append((ms, count))
            }
        }
    }

    func recordClass(_ key: String, device: String) {
        guard let lane = laneOf[device] else { return }
        lanesOfClass[key, default: []].insert(lane)
    }

    func recordServer(at ms: Int64, _ label: String) {
        timeline.serverEvents.append(.init(at: ms, label: label))
    }

    func recordPush(at ms: Int64, device: String, push: Int, outcome: ScenarioTimeline.PushOutcome) {
        guard let lane = laneOf[device] else { return }
        timeline.lanes[lane].pushes.append((ms, push, outcome))
    }

    func recordFailure(_ failure: ScenarioTimeline.Failure) { timeline.failure = failure }

    /// The journal's checks (newest first, as the server lists them) onto their lanes.
    func recordChecks(_ entries: [JSON], t0: Instant) {
        for entry in entries.reversed() {
            guard let text = entry["at"]?.stringValue, let at = Instant(rfc3339: text) else { continue }
            let key = Self.classKey(entry["device"] ?? .null)
            let check = ScenarioTimeline.Check(
                at: at.milliseconds(since: t0),
                status: entry["status"]?.intValue ?? 0,
                lifetime: entry["lifetime"]?.intValue,
                etag: entry["etag"]?.stringValue,
                fault: entry["fault"]?.stringValue
            )
            for lane in lanesOfClass[key] ?? [] { timeline.lanes[lane].checks.append(check) }
        }
    }

    func recordPushesSent(_ pushes: [(at: Int64, id: Int, tokens: Int)]) { timeline.pushesSent = pushes }

    func finish(duration ms: Int64) { timeline.durationMilliseconds = ms }

    /// A device class as the journal writes it.
    static func classKey(_ device: JSON) -> String {
        classKey(
            platform: device["platform"]?.stringValue ?? "",
            version: device["version"]?.stringValue,
            build: device["build"]?.stringValue,
            sdk: device["sdk"]?.stringValue,
            sdkVersion: device["sdk_version"]?.stringValue
        )
    }

    /// The fields as a JSON array: joined with a separator, `1`,`2|3` and `1|2`,`3` were one
    /// class, and a missing field was the text "-".
    static func classKey(
        platform: String,
        version: String?,
        build: String?,
        sdk: String?,
        sdkVersion: String?
    )
        -> String
    {
        JSON.array([platform, version, build, sdk, sdkVersion].map { $0.map(JSON.string) ?? .null }).serializedString
    }
}
