import Clock
import JSON
import ReleaseControl

/// A manual session turned into a scenario (Scenarios/README.md's format) as it happens: the
/// rules that exist at the start, every admin change (rules, lift-all, faults, push tokens),
/// the time of each, the devices that checked (one device per device class: platform, version,
/// build, SDK), each check as the app event that makes it (`launch`, then `refresh`) followed by
/// what the answer said as an expectation, and each push as a count. Replayed, the scenario
/// goes green; changing a rule in it fails at the first answer that rule decided.
///
/// Pure: the server feeds it what happened and when; ``yaml(now:)`` writes the file. Bounded:
/// at most ``maximumSteps`` steps and ``maximumDevices`` devices, after which it stops taking
/// more and says so in the file.
///
/// ```swift
/// var recorder = SessionRecorder(project: "demo", start: now, rules: state.rules)
/// recorder.check(entry, answer: answerJSON)
/// print(recorder.yaml(now: later))
/// ```
public struct SessionRecorder: Sendable {
    public static let maximumSteps = 5_000
    public static let maximumDevices = 100

    public let project: String
    public let start: Instant
    private(set) var initialRules: [JSON]
    private(set) var steps: [String] = []
    /// Device name by class key, in the order they first checked.
    private var devices: [(key: DeviceClass, name: String, entry: JSON)] = []
    private var launched: Set<String> = []
    /// Rule bodies as the server last showed them, by id (for `update_rule` diffs).
    private var rules: [String: JSON] = [:]
    /// Faults recorded since the last `clear_faults`.
    private var faultsArmed = 0
    private var pushes = 0
    private var lastStepAt: Instant
    /// Why recording stopped taking steps, once it has.
    private(set) var stopped: String?
    /// Checks that could not become a device (no platform), and events of other kinds left out.
    private(set) var notes: [String] = []

    public init(project: String, start: Instant, rules: [Rule]) {
        self.project = project
        self.start = start
        lastStepAt = start
        initialRules = []
        for rule in rules {
            self.rules[rule.id] = rule.json
            initialRules.append(Self.ruleEntry(rule.json, start: start))
        }
    }

    public var stepCount: Int { steps.count }
    public var deviceCount: Int { devices.count }

    // MARK: What happened

    /// A check the server answered; `answer` is the 200's body (for a 304, the body it stands for).
    public mutating func check(_ entry: RequestJournal.Entry, answer: JSON?) {
        guard entry.project == project, stopped == nil else { return }
        guard let platform = entry.platform else {
            note("a check without a platform at \(entry.at.rfc3339) (no device can make it)")
            return
        }
        // Compared field by field: joined into one string, `1`,`2|3` and `1|2`,`3` were one class.
        let key = DeviceClass(
            platform: platform,
            version: entry.version,
            build: entry.build,
            sdk: entry.sdk,
            sdkVersion: entry.sdkVersion
        )
        var name = devices.first(where: { $0.key == key })?.name
        if name == nil {
            guard devices.count < Self.maximumDevices else {
                return stop("more than \(Self.maximumDevices) kinds of device checked")
            }
            let fresh = "d\(devices.count + 1)"
            var fields: [(String, JSON)] = [
                ("platform", .string(platform)), ("app_version", entry.version.map(JSON.string) ?? .null),
            ]
            if let build = entry.build { fields.append(("build", .string(build))) }
            // No `sdk` sent: null, not left out (left out, the replay sends its platform's SDK).
            fields.append(("sdk", entry.sdk.map(JSON.string) ?? .null))
            fields.append(("sdk_version", entry.sdkVersion.map(JSON.string) ?? .null))
            devices.append((key, fresh, .object(fields)))
            name = fresh
        }
        guard let device = name else { return }
        if launched.insert(device).inserted {
            // Launched, then sent to the background: the replayed app checks only when the
            // session's did, not also on a foreground poll timer of its own.
            append(at: entry.at, "launch: \(device)")
            append(at: entry.at, "background: \(device)")
        } else {
            append(at: entry.at, "refresh: \(device)")
        }
        guard entry.status == 200 || entry.status == 304, let answer else { return }
        // What the device shows follows from the answer: the update rules and the windows.
        var fields: [(String, JSON)] = [("device", .string(device))]
        for part in ["required_update", "optional_update"] {
            if let rule = answer[part]?["rule"]?.stringValue {
                fields.append((part, .object([("rule", .string(rule))])))
            } else {
                fields.append((part, .null))
            }
        }
        fields.append(("maintenance", .number(Double(answer["maintenance"]?.arrayValue?.count ?? 0))))
        append(at: entry.at, "expect: " + FlowYAML.text(.object(fields)))
    }

    /// Acknowledged writes, in order: rules, changes, tokens, pushes, resets.
    public mutating func record(_ events: [StateEvent], at now: Instant) {
        guard stopped == nil else { return }
        let liftedAll = events.contains {
            if case .changeAppended(let p, let change) = $0, p == project, change.kind == .liftedAll {
                return true
            } else {
                return false
            }
        }
        if liftedAll { append(at: now, "lift_all") }
        for event in events {
            switch event {
            case .ruleUpserted(let p, let rule) where p == project:
                let body = rule.json
                if let before = rules[rule.id] {
                    var changed: [(String, JSON)] = [("name", .string(rule.id))]
                    for (key, value) in Self.writable(body, start: start)
                    where Self.writable(before, start: start)[key] != value {
                        changed.append((key, value))
                    }
                    for (key, _) in Self.writable(before, start: start)
                    where Self.writable(body, start: start)[key] == nil {
                        changed.append((key, .null))
                    }
                    if changed.count > 1 { append(at: now, "update_rule: " + FlowYAML.text(.object(changed))) }
                } else {
                    append(at: now, "create_rule: " + FlowYAML.text(Self.ruleEntry(body, start: start)))
                }
                rules[rule.id] = body
            case .ruleDeleted(let p, let id) where p == project:
                rules[id] = nil
                if !liftedAll { append(at: now, "delete_rule: " + FlowYAML.scalar(id)) }
            case .tokenUpserted(let p, let token) where p == project:
                append(
                    at: now,
                    "push_token: "
                        + FlowYAML.text(
                            .object([("token", .string(token.token)), ("platform", .string(token.platform.rawValue))])
                        )
                )
            case .tokenDeleted(let p, let token) where p == project:
                append(at: now, "delete_push_token: " + FlowYAML.scalar(token))
            case .pushRecorded(let p, _) where p == project:
                pushes += 1
                append(at: now, "expect_pushes: {count: \(pushes)}")
            case .replaced:
                note(
                    "the state was replaced at \(now.rfc3339) (reset or import); steps after it start from the new state"
                )
                rules = [:]
                launched = []
                faultsArmed = 0
            default:
                continue
            }
        }
    }

    /// A fault armed by an admin call: each one is a step, whatever the faults before it did
    /// (one armed after an earlier one was used up used to be left out).
    public mutating func faultArmed(_ fault: Fault, project p: String, at now: Instant) {
        guard p == project, stopped == nil else { return }
        var body = JSONObject()
        for (key, value) in fault.json.objectValue ?? JSONObject()
        where !value.isNull && ["kind", "status", "retry_after", "seconds", "count"].contains(key) {
            body[key] = value
        }
        append(at: now, "fault: " + FlowYAML.text(.object(body)))
        faultsArmed += 1
    }

    /// The project's faults cleared by an admin call.
    public mutating func faultsCleared(project p: String, at now: Instant) {
        guard p == project, stopped == nil else { return }
        if faultsArmed > 0 { append(at: now, "clear_faults") }
        faultsArmed = 0
    }

    // MARK: The file

    /// The scenario so far, as Scenarios/README.md describes it, ending at `now`.
    public func yaml(now: Instant) -> String {
        var out = "# Recorded by lerix-mock from \(start.rfc3339) to \(now.rfc3339) (project \(project)).\n"
        out += "# Replay: lerix-mock scenarios THIS_FILE\n"
        out += "name: " + FlowYAML.scalar("Recorded session \(start.rfc3339)") + "\n"
        var description =
            "Recorded with serve --record: admin changes, device checks and pushes, in their order and times."
        if let stopped { description += " Recording stopped early: \(stopped)." }
        if !notes.isEmpty {
            description +=
                " Left out: " + notes.prefix(5).joined(separator: "; ") + (notes.count > 5 ? "; …" : "") + "."
        }
        out += "description: " + FlowYAML.quoted(description) + "\n"
        out += "tags: [recorded]\n"
        if project != StateSnapshot.defaultProjectKey { out += "project: " + FlowYAML.scalar(project) + "\n" }
        if !initialRules.isEmpty {
            out += "rules:\n"
            for rule in initialRules { out += "  - " + FlowYAML.text(rule) + "\n" }
        }
        out += "devices:" + (devices.isEmpty ? " {}" : "") + "\n"
        for d in devices { out += "  \(d.name): " + FlowYAML.text(d.entry) + "\n" }
        out += "steps:" + (steps.isEmpty ? " []" : "") + "\n"
        for step in steps { out += "  - " + step + "\n" }
        return out
    }

    // MARK: Helpers

    private mutating func append(at instant: Instant, _ step: String) {
        guard stopped == nil else { return }
        guard steps.count < Self.maximumSteps - 1 else { return stop("more than \(Self.maximumSteps) steps") }
        if instant > lastStepAt {
            steps.append("at: " + Self.offset(instant.milliseconds(since: start)))
            lastStepAt = instant
        }
        steps.append(step)
    }

    private mutating func stop(_ why: String) { stopped = why }

    private mutating func note(_ text: String) {
        if notes.count < 50 { notes.append(text) }
    }

    /// `1m30s`, `2d4h`, `1500ms`: a duration as steps write it (none below zero).
    static func offset(_ ms: Int64) -> String { FlowYAML.duration(max(0, ms), signed: false) }

    /// A time in a rule body, relative to the start (`+600s`, `-3600s`), so the replay's own
    /// time 0 keeps the same windows and deadlines.
    static func relative(_ text: String, start: Instant) -> JSON {
        guard let t = Instant(rfc3339: text) else { return .string(text) }
        let ms = t.milliseconds(since: start)
        // Scenario durations reach a year; a time further off keeps its date.
        guard abs(ms) <= 365 * 86_400_000 else { return .string(text) }
        return .string(FlowYAML.duration(ms, signed: true))
    }

    static let timeFields: Set<String> = ["starts_at", "ends_at", "becomes_required_on"]

    /// A rule's admin JSON without what the server sets (`id`) or leaves empty (nulls), times relative.
    static func writable(_ body: JSON, start: Instant) -> JSONObject {
        var out = JSONObject()
        for (key, value) in body.objectValue ?? JSONObject() where key != "id" && !value.isNull {
            out[key] =
                timeFields.contains(key) ? (value.stringValue.map { relative($0, start: start) } ?? value) : value
        }
        return out
    }

    /// `{name: r1, type: …}`: the scenario's name for a rule is its server id.
    static func ruleEntry(_ body: JSON, start: Instant) -> JSON {
        var pairs: [(String, JSON)] = [("name", .string(body["id"]?.stringValue ?? "rule"))]
        for (key, value) in writable(body, start: start) { pairs.append((key, value)) }
        return .object(pairs)
    }
}

/// A kind of device as the recording tells them apart: every field the check sent, compared
/// one by one.
struct DeviceClass: Hashable, Sendable {
    var platform: String
    var version: String?
    var build: String?
    var sdk: String?
    var sdkVersion: String?
}
