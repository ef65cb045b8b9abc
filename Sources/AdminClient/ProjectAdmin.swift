import JSON

/// The admin routes of one project (`/admin/projects/{key}/…`), and the push-token registration
/// an admin makes for a test on the device API (`/v1/projects/{key}/push-tokens/{token}`).
///
/// ```swift
/// let demo = Admin.project("demo")
/// let id = try connection.admin(demo.createRule(body)) ?? "?"
/// try connection.admin(demo.liftAll)
/// ```
public struct ProjectAdmin: Sendable, Equatable {
    public let key: String
    var path: String { "/admin/projects/\(key)" }

    /// `GET /admin/projects/{key}`: the project's settings (`apns_topic`, `fcm_project`, …).
    public var settings: AdminCall<JSON> { AdminCall("GET", path, json: nil) }

    /// `POST …/rules`: the new rule's id (`r1`; a number as text). nil `body`: the caller sends
    /// the rule's text as it was written (LerixMock's RawRule), for the server to judge.
    public func createRule(_ body: JSON?) -> AdminCall<String?> {
        AdminCall("POST", path + "/rules", body: body) { json throws(AdminAnswerError) in
            json["id"]?.stringValue ?? json["id"]?.intValue.map(String.init)
        }
    }

    /// `PUT …/rules/{id}`: replaces rule `id`, validated as a new one (nil `body`: as ``createRule(_:)``).
    public func replaceRule(_ id: String, with body: JSON?) -> AdminCall<Void> {
        AdminCall("PUT", path + "/rules/\(id)", body: body)
    }

    /// `DELETE …/rules/{id}`.
    public func deleteRule(_ id: String) -> AdminCall<Void> { AdminCall("DELETE", path + "/rules/\(id)") }

    /// `GET …/rules`: the rules, oldest first.
    public var rules: AdminCall<[JSON]> {
        AdminCall("GET", path + "/rules") { json throws(AdminAnswerError) in json["rules"]?.arrayValue ?? [] }
    }

    /// `POST …/lift-all`: the answer as it came (`{"lifted": [...], ...}`).
    public var liftAll: AdminCall<JSON> { AdminCall("POST", path + "/lift-all", json: nil) }

    /// The ids a lift-all answer names.
    public static func liftedIDs(_ answer: JSON) -> [String] {
        (answer["lifted"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    /// `POST …/faults`: arms a fault on the check endpoint.
    public func addFault(_ fault: JSON) -> AdminCall<Void> { AdminCall("POST", path + "/faults", body: fault) }

    /// `DELETE …/faults`: disarms every fault.
    public var clearFaults: AdminCall<Void> { AdminCall("DELETE", path + "/faults") }

    /// `GET …/pushes[?after=N]`: the first page of the pushes (after push `after`).
    public func pushes(after: Int? = nil) -> AdminCall<AdminPage> {
        Admin.page(path + "/pushes" + (after.map { "?after=\($0)" } ?? ""), items: "pushes")
    }

    /// `GET …/pushes/{id}/results`: the first page of push `id`'s results.
    public func pushResults(_ id: Int) -> AdminCall<AdminPage> {
        Admin.page(path + "/pushes/\(id)/results", items: "results")
    }

    /// `GET …/push-tokens`: the first page of the registered tokens.
    public var pushTokens: AdminCall<AdminPage> { Admin.page(path + "/push-tokens", items: "push_tokens") }

    /// `GET …/changes`: the first page of the release-control changes.
    public var changes: AdminCall<AdminPage> { Admin.page(path + "/changes", items: "changes") }

    /// `GET …/ingest`: items received per module (`{"errors": 2}`).
    public var ingest: AdminCall<JSONObject> {
        AdminCall("GET", path + "/ingest") { json throws(AdminAnswerError) in
            json["ingest"]?.objectValue ?? JSONObject()
        }
    }

    /// `PUT /v1/projects/{key}/push-tokens/{token}`: registers a token as an app would.
    public func registerPushToken(_ token: String, platform: String) -> AdminCall<Void> {
        AdminCall("PUT", "/v1/projects/\(key)/push-tokens/\(token)", body: .object([("platform", .string(platform))]))
    }

    /// `DELETE /v1/projects/{key}/push-tokens/{token}`.
    public func unregisterPushToken(_ token: String) -> AdminCall<Void> {
        AdminCall("DELETE", "/v1/projects/\(key)/push-tokens/\(token)")
    }
}
