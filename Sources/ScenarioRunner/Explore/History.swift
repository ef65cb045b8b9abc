import AdapterProtocol
import JSON
import MockServer
import ScenarioLanguage
import YAML

/// One generated app life: a single device and the moves made to it, to the server and to
/// time. It turns into a ``Scenario`` to run (``scenario(name:)``) and into a scenario file
/// to keep (``HistoryFile``), so what explore ran and what it writes are one thing.
///
/// ```swift
/// let history = HistoryGenerator(platform: "web", capabilities: caps).history(seed: 7, run: 3)
/// let scenario = history.scenario(name: "explore 7:3")
/// ```
public struct History: Sendable, Equatable {
    /// The device every move acts on.
    public static let device = "app"

    public var seed: UInt64
    public var run: Int
    public var platform: String
    public var flavor: String
    public var appVersion: String?
    public var build: String?
    /// A Lerix push token (platforms with push, adapters that emulate it).
    public var push: Bool
    public var clockOffsetSeconds: Int64
    public var moves: [HistoryMove]

    /// The device as a scenario declares it.
    var deviceSpec: DeviceSpec {
        DeviceSpec(
            name: Self.device,
            platform: platform,
            flavor: flavor,
            appVersion: appVersion,
            build: build,
            sdk: DeviceSpec.defaultSDK(platform: platform, flavor: flavor),
            sdkVersion: "1.5.0",
            pushToken: push ? DeviceSpec.defaultToken(name: Self.device, platform: platform) : nil,
            enabled: true,
            clockOffsetSeconds: clockOffsetSeconds
        )
    }

    /// The history as a scenario with no expectations: the explorer observes instead.
    func scenario(name: String) -> Scenario {
        let file = "explore \(seed):\(run)"
        let location = SourceLocation(file: file, mark: YAMLMark(line: 0, column: 0))
        var scenario = Scenario(file: file, name: name)
        scenario.devices = [deviceSpec]
        scenario.groups = ["all": [Self.device]]
        scenario.steps = moves.map { Step(action: $0.action, location: location, text: $0.yaml) }
        return scenario
    }

    /// Moves in which time passes, in milliseconds, and the total.
    var virtualMilliseconds: Int64 {
        moves.reduce(0) { total, move in
            if case .after(let ms) = move { return total + ms }
            return total
        }
    }
}

/// One step of a generated history. Rules are named by the history (`r1`, `r2`, …) and their
/// times are relative to time 0, as a scenario file writes them.
public enum HistoryMove: Sendable, Equatable {
    /// `launch`, `foreground`, `background`, `terminate`, `refresh`, `later`, `skip`, `push`.
    case app(AdapterCommand)
    case network(online: Bool)
    case install(appVersion: String?, build: String?)
    case track(module: String, count: Int)
    case setClock(offsetSeconds: Int64)
    case createRule(name: String, body: JSON)
    case updateRule(name: String, fields: JSON)
    case deleteRule(name: String)
    case liftAll
    case fault(JSON)
    case clearFaults
    case after(milliseconds: Int64)

    /// What the scenario runner does for it.
    var action: StepAction {
        let device = [History.device]
        switch self {
        case .app(let command): return .device(command: command, devices: device)
        case .network(let online): return .network(devices: device, online: online)
        case .install(let version, let build): return .install(devices: device, appVersion: version, build: build)
        case .track(let module, let count): return .track(devices: device, module: module, count: count)
        case .setClock(let seconds): return .setClock(devices: device, offsetSeconds: seconds)
        case .createRule(let name, let body):
            var object = body.objectValue ?? JSONObject()
            object["name"] = nil
            return .createRule(
                RuleSpec(
                    name: name,
                    body: .object(object),
                    location: SourceLocation(file: "explore", mark: YAMLMark(line: 0, column: 0))
                )
            )
        case .updateRule(let name, let fields):
            return .updateRule(RuleUpdate(name: name, fields: fields, expectRejected: false))
        case .deleteRule(let name): return .deleteRule(name: name)
        case .liftAll: return .liftAll
        case .fault(let body): return .fault(body)
        case .clearFaults: return .clearFaults
        case .after(let ms): return .after(milliseconds: ms)
        }
    }

    /// The step as a line of a scenario file (after `- `).
    var yaml: String {
        let d = History.device
        switch self {
        case .app(let command): return "\(command.rawValue): \(d)"
        case .network(let online): return "\(online ? "online" : "offline"): \(d)"
        case .install(let version, let build):
            var fields: [(String, JSON)] = [("device", .string(d)), ("app_version", version.map(JSON.string) ?? .null)]
            if let build { fields.append(("build", .string(build))) }
            return "install: " + FlowYAML.text(.object(fields))
        case .track(let module, let count):
            return "track: "
                + FlowYAML.text(
                    .object([("device", .string(d)), ("module", .string(module)), ("count", .number(Double(count)))])
                )
        case .setClock(let seconds):
            return "set_clock: {device: \(d), clock_offset: \(FlowYAML.duration(seconds * 1000, signed: true))}"
        case .createRule(let name, let body):
            var object = JSONObject()
            object["name"] = .string(name)
            for (k, v) in body.objectValue ?? JSONObject() where k != "name" { object[k] = v }
            return "create_rule: " + FlowYAML.text(.object(object))
        case .updateRule(let name, let fields):
            var object = JSONObject()
            object["name"] = .string(name)
            for (k, v) in fields.objectValue ?? JSONObject() { object[k] = v }
            return "update_rule: " + FlowYAML.text(.object(object))
        case .deleteRule(let name): return "delete_rule: \(name)"
        case .liftAll: return "lift_all"
        case .fault(let body): return "fault: " + FlowYAML.text(body)
        case .clearFaults: return "clear_faults"
        case .after(let ms): return "after: " + FlowYAML.duration(ms, signed: false)
        }
    }

    /// Whether the move is an app event sent to the device (the explorer's own bookkeeping).
    var isTimeMove: Bool {
        if case .after = self { return true }
        return false
    }
}
