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
                        segments.append(
                            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
                        )
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

    /// The project of a check, `GET|HEAD /v1/projects/{project}/release-control[?…]`, read
    /// straight from the target's bytes, so the hot path skips splitting the path and matching
    /// every route. nil for anything else, and for a project that is not plain printable ASCII
    /// (percent-encoded, non-ASCII, control bytes) or a path the general route reads differently
    /// (empty segments, a trailing slash): those take ``resolve(method:path:)`` and its checks.
    static func checkProject(_ request: HTTPRequest) -> String? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        var target = request.target
        return target.withUTF8 { bytes -> String? in
            let prefix: StaticString = "/v1/projects/"
            let suffix: StaticString = "/release-control"
            guard bytes.starts(with: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
            else { return nil }
            var end = prefix.utf8CodeUnitCount
            let start = end
            while end < bytes.count, bytes[end] != UInt8(ascii: "/") {
                let b = bytes[end]
                guard b > 0x20, b < 0x7F, b != UInt8(ascii: "%"), b != UInt8(ascii: "?") else { return nil }
                end += 1
            }
            guard end > start else { return nil }
            let rest = UnsafeBufferPointer(rebasing: bytes[end...])
            let tail = UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
            guard rest.starts(with: tail), rest.count == tail.count || rest[tail.count] == UInt8(ascii: "?") else {
                return nil
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
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
        Route("POST", "/admin/recording", .startRecording),
        Route("GET", "/admin/recording", .getRecording),
        Route("DELETE", "/admin/recording", .stopRecording),
    ])
}
