import Clock
import Foundation
import JSON
import LerixSDK

/// The typed admin API: what the README's curl walk-through does, as Swift calls that throw the
/// server's problem+json as ``MockProblem``.
extension LerixMock {
    private var projectPath: String { "/admin/projects/\(project)" }

    /// Creates a rule; its server id (`r1`, `r2`, …).
    @discardableResult
    public func create(_ rule: some MockRule) throws(MockProblem) -> String {
        try admin("POST", projectPath + "/rules", rule)["id"]?.stringValue ?? ""
    }

    /// Replaces rule `id` with `rule`, validated as a new one; the id stays.
    public func replaceRule(_ id: String, with rule: some MockRule) throws(MockProblem) {
        try admin("PUT", projectPath + "/rules/\(id)", rule)
    }

    /// Deletes rule `id` (a 404 problem when there is none).
    public func deleteRule(_ id: String) throws(MockProblem) {
        try admin("DELETE", projectPath + "/rules/\(id)")
    }

    /// The project's rules, oldest first.
    public func rules() throws(MockProblem) -> [RuleRecord] {
        (try admin("GET", projectPath + "/rules")["rules"]?.arrayValue ?? []).map(RuleRecord.init)
    }

    /// Lifts every blocking rule; the ids lifted.
    @discardableResult
    public func liftAll() throws(MockProblem) -> [String] {
        (try admin("POST", projectPath + "/lift-all")["lifted"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    /// Arms a fault on the check endpoint (faults armed earlier stay armed).
    public func addFault(_ fault: MockFault) throws(MockProblem) {
        try admin("POST", projectPath + "/faults", fault.json)
    }

    /// Disarms every fault.
    public func clearFaults() throws(MockProblem) {
        try admin("DELETE", projectPath + "/faults")
    }

    /// A push token no app of this mock owns (an app's own token comes with ``makeApp``).
    public func registerPushToken(_ token: String, platform: Platform) throws(MockProblem) {
        try admin("PUT", "/v1/projects/\(project)/push-tokens/\(token)", .object([("platform", .string(platform.rawValue))]))
    }

    /// The pushes sent, oldest first.
    public func pushes() throws(MockProblem) -> [PushSummary] {
        (try admin("GET", projectPath + "/pushes?limit=1000")["pushes"]?.arrayValue ?? []).map(PushSummary.init)
    }

    /// The checks the server answered, oldest first.
    public func journal() throws(MockProblem) -> [CheckRecord] {
        (try admin("GET", "/admin/requests?project=\(project)&limit=100000")["requests"]?.arrayValue ?? []).reversed().map(CheckRecord.init)
    }

    /// Items received per module.
    public func ingestCounts() throws(MockProblem) -> [LerixModule: Int] {
        var out: [LerixModule: Int] = [:]
        for (name, value) in try admin("GET", projectPath + "/ingest")["ingest"]?.objectValue ?? JSONObject() {
            if let module = LerixModule(rawValue: name), let n = value.intValue { out[module] = n }
        }
        return out
    }

    /// Back to the start state (one project, no rules), time unchanged.
    public func reset() throws(MockProblem) {
        try admin("POST", "/admin/reset")
    }

    /// The whole state, as `GET /admin/state` exports it (JSON; `lerix-mock serve --seed` reads it).
    public func exportState() throws(MockProblem) -> Data {
        try call("GET", "/admin/state")
    }

    /// Replaces the whole state with a snapshot, validated as a whole (nothing changes on a problem).
    public func importState(_ snapshot: Data) throws(MockProblem) {
        try call("PUT", "/admin/state", body: snapshot)
    }
}

/// A rule as `GET …/rules` lists it.
public struct RuleRecord: Sendable, Equatable {
    /// The server's id (`r1`).
    public var id: String
    /// `required_update`, `optional_update`, `recommended_update`, `maintenance` or `sdk_switch`.
    public var type: String
    /// The whole rule as JSON.
    public var json: Data

    init(_ json: JSON) {
        id = json["id"]?.stringValue ?? ""
        type = json["type"]?.stringValue ?? ""
        self.json = Data(json.serialized())
    }
}

/// A push as `GET …/pushes` lists it.
public struct PushSummary: Sendable, Equatable {
    /// The push's id, 1 for the project's first.
    public var id: Int
    /// When it was sent (nil while it waits for the 60 s throttle).
    public var sentAt: Date?
    /// Tokens per platform it went to.
    public var tokens: [String: Int]
    /// Tokens the gateway took.
    public var delivered: Int

    init(_ json: JSON) {
        id = json["id"]?.intValue ?? 0
        sentAt = json["sent_at"]?.stringValue.flatMap(Instant.init(rfc3339:))?.date
        var counts: [String: Int] = [:]
        for (platform, n) in json["tokens"]?.objectValue ?? JSONObject() { counts[platform] = n.intValue ?? 0 }
        tokens = counts
        delivered = json["delivered"]?.intValue ?? 0
    }
}

/// One check in the server's journal.
public struct CheckRecord: Sendable, Equatable {
    /// When the server answered it.
    public var at: Date?
    /// The device's platform, app version and build as the check named them.
    public var platform: String?
    /// The app version the check named.
    public var version: String?
    /// The build the check named.
    public var build: String?
    /// 200, 304, an error status, or 0 for a connection the server reset.
    public var status: Int
    /// The answer's lifetime in seconds.
    public var lifetime: Int?
    /// The answer's ETag.
    public var etag: String?

    init(_ json: JSON) {
        at = json["at"]?.stringValue.flatMap(Instant.init(rfc3339:))?.date
        platform = json["device"]?["platform"]?.stringValue
        version = json["device"]?["version"]?.stringValue
        build = json["device"]?["build"]?.stringValue
        status = json["status"]?.intValue ?? 0
        lifetime = json["lifetime"]?.intValue
        etag = json["etag"]?.stringValue
    }
}
