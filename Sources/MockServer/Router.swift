import HTTP

/// Finds the route for a method and path: a match, a known path with other methods (405),
/// or nothing (404). `HEAD` is served by the `GET` route of the same path.
///
/// ```swift
/// let router = Router.standard
/// router.resolve(method: "GET", path: ["healthz"])   // .matched(route, [:])
/// router.resolve(method: "PATCH", path: ["healthz"]) // .methodNotAllowed(allow: ["GET", "HEAD"])
/// ```
struct Router: Sendable {
    enum Resolution: Sendable {
        case matched(Route, [String: String])
        case methodNotAllowed(allow: [String])
        case notFound
    }

    let routes: [Route]

    /// The request's path segments; only a path with `%` goes through the general decoding.
    ///
    /// The hot path (every check) reads the target's bytes once, in place: generic `split` over
    /// `String.UTF8View` cost more than the rest of routing together.
    static func segments(_ request: HTTPRequest) -> [String] {
        let plain = request.target.utf8.withContiguousStorageIfAvailable { bytes -> [String]? in
            var segments: [String] = []
            segments.reserveCapacity(6)
            var start = 0
            var i = 0
            while i <= bytes.count {
                let byte = i < bytes.count ? bytes[i] : UInt8(ascii: "?")
                if byte == UInt8(ascii: "%") { return nil }
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") {
                    if i > start {
                        segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start ..< i]), as: UTF8.self))
                    }
                    if byte == UInt8(ascii: "?") { return segments }
                    start = i + 1
                }
                i += 1
            }
            return segments
        }
        if let plain, let segments = plain { return segments }
        return request.pathSegments
    }

    func resolve(method: String, path: [String]) -> Resolution {
        var allowed: [String] = []
        for route in routes {
            guard let parameters = route.match(path) else { continue }
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .matched(route, parameters)
            }
            allowed.append(route.method)
            if route.method == "GET" { allowed.append("HEAD") }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allow: allowed)
    }

    /// Every route of the mock, the check first because it is the hot path.
    static let standard = Router(routes: [
        Route("GET", "/v1/projects/{project}/release-control", .check),
        Route("POST", "/v1/projects/{project}/ingest/{module}", .ingest),
        Route("PUT", "/v1/projects/{project}/push-tokens/{token}", .registerToken),
        Route("DELETE", "/v1/projects/{project}/push-tokens/{token}", .unregisterToken),
        Route("GET", "/", .index),
        Route("GET", "/healthz", .health),
        Route("GET", "/openapi.json", .openAPI),
        Route("GET", "/ui", .dashboard),
        Route("GET", "/ui/{asset}", .dashboardAsset),
        Route("GET", "/admin/projects", .listProjects),
        Route("GET", "/admin/projects/{project}", .getProject),
        Route("PUT", "/admin/projects/{project}", .putProject),
        Route("GET", "/admin/projects/{project}/rules", .listRules),
        Route("POST", "/admin/projects/{project}/rules", .createRule),
        Route("GET", "/admin/projects/{project}/rules/{rule}", .getRule),
        Route("PUT", "/admin/projects/{project}/rules/{rule}", .replaceRule),
        Route("DELETE", "/admin/projects/{project}/rules/{rule}", .deleteRule),
        Route("POST", "/admin/projects/{project}/lift-all", .liftAll),
        Route("GET", "/admin/projects/{project}/changes", .listChanges),
        Route("GET", "/admin/projects/{project}/ingest", .ingestCounts),
        Route("GET", "/admin/projects/{project}/push-tokens", .listTokens),
        Route("GET", "/admin/projects/{project}/pushes", .listPushes),
        Route("GET", "/admin/projects/{project}/pushes/{push}", .getPush),
        Route("GET", "/admin/projects/{project}/pushes/{push}/results", .listPushResults),
        Route("GET", "/admin/projects/{project}/faults", .listFaults),
        Route("POST", "/admin/projects/{project}/faults", .addFault),
        Route("DELETE", "/admin/projects/{project}/faults", .clearFaults),
        Route("GET", "/admin/requests", .journal),
        Route("GET", "/admin/events", .events),
        Route("POST", "/admin/reset", .reset),
        Route("GET", "/admin/clock", .getClock),
        Route("POST", "/admin/clock", .setClock),
        Route("GET", "/admin/push-gateways", .getPushGateways),
        Route("PUT", "/admin/push-gateways", .putPushGateways),
        Route("GET", "/admin/state", .exportState),
        Route("PUT", "/admin/state", .importState),
    ])
}
