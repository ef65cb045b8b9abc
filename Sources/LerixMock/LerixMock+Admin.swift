import AdminClient
import Clock
import Foundation
import JSON
import LerixSDK

/// The typed admin API: what the README's curl walk-through does, as Swift calls that throw the
/// server's problem+json as ``MockProblem``.
extension LerixMock {
    /// The project's admin routes (AdminClient's, which the scenario runner sends too).
    private var routes: ProjectAdmin { Admin.project(project) }

    /// Creates a rule; its server id (`r1`, `r2`, …).
    @discardableResult
    public func create(_ rule: some MockRule) throws(MockProblem) -> String {
        try admin(routes.createRule(nil), sending: rule) ?? ""
    }

    /// Replaces rule `id` with `rule`, validated as a new one; the id stays.
    public func replaceRule(_ id: String, with rule: some MockRule) throws(MockProblem) {
        try admin(routes.replaceRule(id, with: nil), sending: rule)
    }

    /// Deletes rule `id` (a 404 problem when there is none, 410 when a change already removed it).
    public func deleteRule(_ id: String) throws(MockProblem) {
        try admin(routes.deleteRule(id))
    }

    /// The project's rules, oldest first.
    public func rules() throws(MockProblem) -> [RuleRecord] {
        try admin(routes.rules).map(RuleRecord.init)
    }

    /// Lifts every blocking rule; the ids lifted.
    @discardableResult
    public func liftAll() throws(MockProblem) -> [String] {
        ProjectAdmin.liftedIDs(try admin(routes.liftAll))
    }

    /// Arms a fault on the check endpoint (faults armed earlier stay armed).
    public func addFault(_ fault: MockFault) throws(MockProblem) {
        try admin(routes.addFault(fault.json))
    }

    /// Disarms every fault.
    public func clearFaults() throws(MockProblem) {
        try admin(routes.clearFaults)
    }

    /// A push token no app of this mock owns (an app's own token comes with ``makeApp``).
    public func registerPushToken(_ token: String, platform: Platform) throws(MockProblem) {
        try admin(routes.registerPushToken(token, platform: platform.rawValue))
    }

    /// The pushes sent, oldest first.
    public func pushes() throws(MockProblem) -> [PushSummary] {
        try everyPage(routes.pushes()).map(PushSummary.init)
    }

    /// Push `id`'s result per token, in the order it went to them.
    public func pushResults(_ id: Int) throws(MockProblem) -> [PushResult] {
        try everyPage(routes.pushResults(id)).map(PushResult.init)
    }

    /// The push tokens registered in the project (the apps' own included, once they registered).
    public func pushTokens() throws(MockProblem) -> [String] {
        try everyPage(routes.pushTokens).compactMap { $0["token"]?.stringValue }
    }

    /// The release-control changes the admin made, oldest first.
    public func changes() throws(MockProblem) -> [ChangeRecord] {
        try everyPage(routes.changes).map(ChangeRecord.init)
    }

    /// Creates another project (apps and the typed calls stay on ``project``; ``call(_:_:body:)``
    /// reaches the others).
    public func createProject(_ key: String, apnsTopic: String? = nil, fcmProject: String? = nil) throws(MockProblem) {
        try admin(Admin.putProject(key, apnsTopic: apnsTopic, fcmProject: fcmProject))
    }

    /// The projects' keys.
    public func projects() throws(MockProblem) -> [String] {
        try admin(Admin.projects)
    }

    /// A listing's items over all its pages, following each page's `next` link.
    private func everyPage(_ first: AdminCall<AdminPage>) throws(MockProblem) -> [JSON] {
        var page = try admin(first)
        var items = page.items
        while let next = page.nextCall {
            page = try admin(next)
            items += page.items
        }
        return items
    }

    /// The checks the server answered, oldest first.
    public func journal() throws(MockProblem) -> [CheckRecord] {
        try admin(Admin.journal(project: project, limit: 100_000)).reversed().map(CheckRecord.init)
    }

    /// Items received per module.
    public func ingestCounts() throws(MockProblem) -> [LerixModule: Int] {
        var out: [LerixModule: Int] = [:]
        for (name, value) in try admin(routes.ingest) {
            if let module = LerixModule(rawValue: name), let n = value.intValue { out[module] = n }
        }
        return out
    }

    /// Back to the start state (one project, no rules), time unchanged.
    public func reset() throws(MockProblem) {
        try admin(Admin.reset())
    }

    /// The whole state, as `GET /admin/state` exports it (JSON; `lerix-mock serve --seed` reads it).
    public func exportState() throws(MockProblem) -> Data {
        try call("GET", Admin.statePath)
    }

    /// Replaces the whole state with a snapshot, validated as a whole (nothing changes on a problem).
    public func importState(_ snapshot: Data) throws(MockProblem) {
        try call("PUT", Admin.statePath, body: snapshot)
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
    /// The change ids it carries.
    public var changes: [Int]
    /// Tokens the gateway took.
    public var delivered: Int
    /// Tokens the gateway refused (unregistered ones included).
    public var failed: Int
    /// Tokens still waiting for the gateway's answer.
    public var pending: Int

    init(_ json: JSON) {
        id = json["id"]?.intValue ?? 0
        sentAt = json["sent_at"]?.stringValue.flatMap(Instant.init(rfc3339:))?.date
        var counts: [String: Int] = [:]
        for (platform, n) in json["tokens"]?.objectValue ?? JSONObject() { counts[platform] = n.intValue ?? 0 }
        tokens = counts
        changes = (json["changes"]?.arrayValue ?? []).compactMap(\.intValue)
        delivered = json["delivered"]?.intValue ?? 0
        failed = json["failed"]?.intValue ?? 0
        pending = json["pending"]?.intValue ?? 0
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

/// One token's result of a push.
public struct PushResult: Sendable, Equatable {
    /// The token.
    public var token: String
    /// Its platform.
    public var platform: String
    /// `delivered`, `failed`, `unregistered`, `pending` or `no_gateway`.
    public var result: String
    /// Why it failed, when it did.
    public var reason: String?

    init(_ json: JSON) {
        token = json["token"]?.stringValue ?? ""
        platform = json["platform"]?.stringValue ?? ""
        result = json["result"]?.stringValue ?? ""
        reason = json["reason"]?.stringValue
    }
}

/// A release-control change the admin made.
public struct ChangeRecord: Sendable, Equatable {
    /// Its id, 1 for the project's first.
    public var id: Int
    /// When it was made.
    public var at: Date?
    /// `created`, `updated`, `deleted` or `lifted_all`.
    public var kind: String
    /// The rule it changed (nil for a lift-all).
    public var rule: String?
    /// Whether it blocks apps (and so pushes).
    public var blocking: Bool

    init(_ json: JSON) {
        id = json["id"]?.intValue ?? 0
        at = json["at"]?.stringValue.flatMap(Instant.init(rfc3339:))?.date
        kind = json["kind"]?.stringValue ?? ""
        rule = json["rule"]?.stringValue
        blocking = json["blocking"]?.boolValue ?? false
    }
}
