/// Every operation the mock serves. The route table maps method and path onto these, and
/// ``Endpoint/doc`` (an exhaustive switch) describes each one for `/openapi.json`, so a new
/// endpoint cannot compile without its documentation.
enum Endpoint: String, CaseIterable, Sendable {
    case index, health, openAPI
    case check, ingest, registerToken, unregisterToken
    case listProjects, getProject, putProject
    case listRules, createRule, getRule, replaceRule, deleteRule
    case liftAll, listChanges, ingestCounts, listTokens, listPushes, getPush, listPushResults
    case listFaults, addFault, clearFaults
    case journal, reset, getClock, setClock, getPushGateways, putPushGateways, exportState, importState
    case events, dashboard, dashboardAsset
    case startRecording, getRecording, stopRecording
}

/// One route: a method and a path pattern whose `{name}` segments capture a value.
struct Route: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    let method: String
    let pattern: String
    let segments: [Segment]
    let endpoint: Endpoint
    /// How many `{name}` segments: the captured parameters' table is made that size at once.
    let parameterCount: Int

    init(_ method: String, _ pattern: String, _ endpoint: Endpoint) {
        self.method = method
        self.pattern = pattern
        self.endpoint = endpoint
        segments = pattern.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        parameterCount = segments.count { if case .parameter = $0 { true } else { false } }
    }

    /// Admin routes need the admin token when one is configured.
    var isAdmin: Bool { pattern.hasPrefix("/admin") }

    /// The captured parameters when `path` (already split and decoded) fits this pattern.
    func match(_ path: [String]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        // The literals first: a route that does not fit builds no dictionary.
        for (segment, part) in zip(segments, path) {
            if case .literal(let text) = segment, text != part { return nil }
        }
        // Sized once: grown from empty, two parameters cost two allocations and a rehash.
        var parameters = [String: String](minimumCapacity: parameterCount)
        for (segment, part) in zip(segments, path) {
            if case .parameter(let name) = segment { parameters[name] = part }
        }
        return parameters
    }
}
