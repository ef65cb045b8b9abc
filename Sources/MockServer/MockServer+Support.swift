import Clock
import HTTP
import JSON
import ReleaseControl

extension MockServer {
    /// Admin answers are indented for people reading a terminal.
    func jsonResponse(_ status: Int, _ json: JSON, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers, body: json.prettySerialized())
        response.headers.set("Content-Type", "application/json")
        return response
    }

    func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    func noContent() -> HTTPResponse { HTTPResponse(status: 204) }

    /// A response that changes only with the binary or its flags: reusable for a while (the
    /// server adds the validator and answers `If-None-Match`). Everything else is live state.
    func document(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.set("Cache-Control", CacheDirective.document)
        return response
    }

    /// The body as JSON, or a 400 problem saying where it stops being JSON.
    func parseBody(_ call: Call) throws(Problem) -> JSON {
        do {
            return try JSON.parse(call.request.body)
        } catch {
            throw Problem.malformedJSON(error)
        }
    }

    /// The body as JSON, or nil when there is none.
    func parseOptionalBody(_ call: Call) throws(Problem) -> JSON? {
        if call.request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return nil }
        return try parseBody(call)
    }

    /// Reads under the state lock; 404 when the project does not exist.
    func withProject<T>(_ key: String, _ body: (ProjectRuntime) -> T) throws(Problem) -> T {
        let result: T? = state.withLock { s in
            guard let project = s.projects[key] else { return nil }
            return body(project)
        }
        guard let result else { throw Problem.unknownProject(key) }
        return result
    }

    /// Runs one acknowledged write: `body` runs with the writer lock held, reads what it needs,
    /// and returns the events to store and the in-memory update to apply once they are stored.
    /// A store that refuses turns into 503 and nothing changes.
    func write<T: Sendable>(_ body: () throws(Problem) -> (events: [StateEvent], apply: (inout ServerState) -> Void, result: T))
        throws(Problem) -> T
    {
        try writer.withLock { _ throws(Problem) -> T in
            let planned = try body()
            if !planned.events.isEmpty {
                do {
                    try options.store.apply(planned.events)
                } catch {
                    options.log("state store refused a write: \(error)")
                    throw Problem.storageUnavailable(error)
                }
            }
            state.withLock { planned.apply(&$0) }
            announce(planned.events)
            return planned.result
        }
    }

    /// The project's domain state (a copy to mutate), or 404.
    func projectState(_ key: String) throws(Problem) -> ProjectState {
        try withProject(key) { $0.state }
    }
}
