import Clock
import JSON

/// The admin API's server-wide routes (docs/CONTRACT.md), each an ``AdminCall``; a project's
/// routes are on ``ProjectAdmin`` (`Admin.project("demo")`).
///
/// ```swift
/// let start = try connection.admin(Admin.clock).now
/// try connection.admin(Admin.setClock(to: start.adding(seconds: 60)))
/// ```
public enum Admin {
    /// The routes of project `key`.
    public static func project(_ key: String) -> ProjectAdmin { ProjectAdmin(key: key) }

    /// `POST /admin/reset`: back to the seed state; with `now`, a manual clock is set to it. The
    /// answer as it came (`{"now": …}`).
    public static func reset(now: Instant? = nil) -> AdminCall<JSON> {
        AdminCall("POST", "/admin/reset", json: now.map { .object([("now", .string($0.rfc3339))]) })
    }

    private static let clockPath = "/admin/clock"

    /// `GET /admin/clock`: the server's time, its next timer and the pushes in flight.
    public static let clock = AdminCall("GET", clockPath) { json throws(AdminAnswerError) in
        try ServerClockState(json)
    }

    /// `GET /admin/clock` as it came, for what ``ServerClockState`` does not hold (`mode`).
    public static let clockAnswer = AdminCall<JSON>("GET", clockPath, json: nil)

    /// `POST /admin/clock {"set": t}`: moves a manual clock forward to `instant`; the clock after.
    public static func setClock(to instant: Instant) -> AdminCall<ServerClockState> {
        AdminCall("POST", clockPath, body: .object([("set", .string(instant.rfc3339))])) {
            json throws(AdminAnswerError) in try ServerClockState(json)
        }
    }

    /// `GET /admin/requests?project=&limit=`: the latest checks of `project`, newest first.
    public static func journal(project: String, limit: Int) -> AdminCall<[JSON]> {
        AdminCall("GET", "/admin/requests?project=\(project)&limit=\(limit)") { $0["requests"]?.arrayValue ?? [] }
    }

    /// `GET /admin/projects`: the projects' keys.
    public static let projects = AdminCall("GET", "/admin/projects") { json throws(AdminAnswerError) in
        (json["projects"]?.arrayValue ?? []).compactMap { $0["key"]?.stringValue }
    }

    /// `PUT /admin/projects/{key}`: creates (or replaces the settings of) a project.
    public static func putProject(_ key: String, apnsTopic: String? = nil, fcmProject: String? = nil) -> AdminCall<Void>
    {
        var pairs: [(String, JSON)] = []
        if let apnsTopic { pairs.append(("apns_topic", .string(apnsTopic))) }
        if let fcmProject { pairs.append(("fcm_project", .string(fcmProject))) }
        return AdminCall("PUT", ProjectAdmin(key: key).path, body: .object(pairs))
    }

    /// `GET /admin/push-gateways`: `{"apns": URL | null, "fcm": URL | null}`.
    public static let pushGateways = AdminCall<JSON>("GET", "/admin/push-gateways", json: nil)

    /// `PUT /admin/push-gateways`: where pushes go from now on.
    public static func setPushGateways(_ gateways: JSON) -> AdminCall<Void> {
        AdminCall("PUT", "/admin/push-gateways", body: gateways)
    }

    /// `GET|PUT /admin/state`: the whole state as a snapshot (its bytes are the caller's).
    public static let statePath = "/admin/state"

    /// The page a listing's `next` link names, its items under `key`.
    public static func page(_ path: String, items key: String) -> AdminCall<AdminPage> {
        AdminCall("GET", path) { json throws(AdminAnswerError) in
            AdminPage(items: json[key]?.arrayValue ?? [], next: json["next"]?.stringValue, key: key)
        }
    }
}

/// One page of a listing, and the path of the next one (nil on the last).
public struct AdminPage: Sendable, Equatable {
    public var items: [JSON]
    /// The next page's path (the answer's `next` link).
    public var next: String?
    /// Where a page holds its items (`pushes`, `results`, …).
    public var key: String

    /// The call for the next page; nil on the last.
    public var nextCall: AdminCall<AdminPage>? { next.map { Admin.page($0, items: key) } }
}
