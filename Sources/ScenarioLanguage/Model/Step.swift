import AdapterProtocol
import JSON

/// One line of a scenario's `steps`, with where it was written (failures point there).
public struct Step: Sendable {
    public var action: StepAction
    public var location: SourceLocation
    /// The step as written, one line, for failure output.
    public var text: String

    package init(action: StepAction, location: SourceLocation, text: String) {
        self.action = action
        self.location = location
        self.text = text
    }
}

/// What a step does. Device steps name their devices through a selector (a device, a group, `all`).
public enum StepAction: Sendable {
    // Device lifecycle (ADAPTER.md commands)
    case device(command: AdapterCommand, devices: [String])  // one of AdapterCommand.appEvents
    case network(devices: [String], online: Bool)
    case install(devices: [String], appVersion: String?, build: String?)
    case track(devices: [String], module: String, count: Int)
    /// The user sets the device clock: from now on it reads true time plus `offsetSeconds`.
    case setClock(devices: [String], offsetSeconds: Int64)
    // Server
    case createRule(RuleSpec)
    case updateRule(RuleUpdate)
    case deleteRule(name: String)
    case liftAll
    case fault(JSON)
    case clearFaults
    case addPushToken(token: String, platform: String)
    case deletePushToken(token: String)
    // Time
    case after(milliseconds: Int64)
    case at(milliseconds: Int64)  // since time 0
    case until(Expectation, withinMilliseconds: Int64)
    // Push routing
    case pushDelivery(devices: [String], policy: PushPolicy)
    /// The push gateway refuses these devices' tokens with a provider status; nil: the provider's
    /// "the app is gone" (410 from APNs, 404 UNREGISTERED from FCM), whatever platform each runs on.
    case gatewayReject(devices: [String], status: Int?)
    // Expectations
    case expect(Expectation)
}

extension StepAction {
    /// The adapter command the step sends, when it sends one.
    package var command: AdapterCommand? {
        switch self {
        case .device(let command, _): return command
        case .network: return .network
        case .install: return .install
        case .track: return .track
        case .setClock: return .setClock
        default: return nil
        }
    }
}

/// `update_rule`: the fields to change in a rule the scenario created; a field written as
/// `null` is cleared (`becomes_required_on: null`).
public struct RuleUpdate: Sendable {
    public var name: String
    public var fields: JSON
    /// `rejected: true`: the step expects the server to refuse the change (a 4xx); the rule stays as it was.
    public var expectRejected: Bool

    package init(name: String, fields: JSON, expectRejected: Bool) {
        self.name = name
        self.fields = fields
        self.expectRejected = expectRejected
    }

    /// The whole body the server gets: `body` with these fields set, and the cleared ones removed.
    package func applied(to body: JSON) -> JSON {
        guard case .object(var o) = body else { return body }
        for (k, v) in fields.objectValue ?? JSONObject() {
            if v.isNull { o[k] = nil } else { o[k] = v }
        }
        return .object(o)
    }
}

/// How silent pushes reach a device from now on: the OS may deliver late or not at all.
public struct PushPolicy: Sendable, Equatable {
    /// Probability in 0...1 that a push is dropped (1: always), drawn from the scenario's seeded generator.
    public var dropProbability: Double
    public var delayMilliseconds: Int64
    public static let deliver = PushPolicy(dropProbability: 0, delayMilliseconds: 0)
}

/// Something that must hold at a point of virtual time.
public enum Expectation: Sendable {
    /// Each listed device's `state` matches `fields` (a partial match: only the keys given).
    case device(devices: [String], fields: JSONObject)
    /// Counts over the server's journal of checks since time 0, optionally for some devices only,
    /// and `last`: fields of each selected device's latest check.
    case server(devices: [String]?, counts: JSONObject, last: JSONObject?)
    /// The pushes the server sent since time 0.
    case pushes(JSONObject)
    /// The server's ingest counts per module.
    case ingest(JSONObject)

    /// Whether a count of this expectation counts from each device's previous expectation
    /// (`checks: "+1"`, `queued: {analytics: ">= +2"}`).
    package var countsFromPrevious: Bool {
        guard case .device(_, let fields) = self else { return false }
        func relative(_ value: JSON) -> Bool { value.stringValue.map(StateShape.countsFromPrevious) ?? false }
        return fields.contains { key, value in
            if StateShape.topCounts.contains(key) { return relative(value) }
            if StateShape.countObjects.contains(key) {
                return value.objectValue?.contains { relative($0.value) } ?? false
            }
            return false
        }
    }

    /// Devices whose exchanges help explain a failure.
    package var devices: [String] {
        switch self {
        case .device(let d, _): return d
        case .server(let d, _, _): return d ?? []
        case .pushes, .ingest: return []
        }
    }
}
