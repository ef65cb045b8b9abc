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
        // Read in place: `s.projects[key]` copied the whole project out first (~830 instructions).
        var result: T?
        state.withLock { s in _ = s.updateProject(key) { result = body($0) } }
        guard let result else { throw Problem.unknownProject(key) }
        return result
    }

    /// Runs one acknowledged write: `body` runs with the writer lock held, reads what it needs,
    /// and returns the events to store and the in-memory update. The events go to the store in
    /// line behind every earlier write, the update applies to memory at once (so the next writer
    /// plans on top of it), and `commits` settles once the store committed them: what answers or
    /// acts on the write waits for that (``PendingCommits/whenSettled(_:)``), so nothing is
    /// acknowledged before it is durable, and writes in flight together share commits.
    ///
    /// A store that refuses at once turns into a thrown 503 and nothing changes; one that refuses
    /// later settles `commits` with the 503 after memory is put back to what the store holds.
    func write<T: Sendable>(
        for commits: PendingCommits,
        _ body: () throws(Problem) -> (events: [StateEvent], apply: (inout ServerState) -> Void, result: T)
    )
        throws(Problem) -> T
    {
        // Waking the store's committer is a system call: done after the writer lock is released,
        // so the other loops' writers do not queue behind it. A request's writes on a server loop
        // that ends batches commit at the batch's end instead (``batchEnded()``).
        defer { if !commits.commitAtBatchEnd { options.store.commitEnqueued() } }
        return try writer.withLock { _ throws(Problem) -> T in
            try recoverIfRefused()
            let planned = try body()
            let events = planned.events
            if !events.isEmpty {
                commits.expect()
                do {
                    try options.store.enqueue(events) { [self] error in
                        guard let error else { return commits.settle(nil) }
                        options.log("state store refused a write: \(error)")
                        // Memory goes back to the stored state before anyone hears of the refusal.
                        writer.withLock { _ in
                            do throws(Problem) { try recoverIfRefused() } catch { options.log("\(error.detail)") }
                        }
                        commits.settle(Problem.storageUnavailable(error))
                    }
                } catch {
                    commits.settle(nil)
                    options.log("state store refused a write: \(error)")
                    throw Problem.storageUnavailable(error)
                }
            }
            state.withLock { planned.apply(&$0) }
            if !events.isEmpty {
                commits.whenSettled { [self] problem in if problem == nil { announce(events) } }
            }
            return planned.result
        }
    }

    /// After the store refused a pipelined write, memory holds it and everything planned on top
    /// of it: put memory back to what the store holds (faults, which are never stored, stay).
    /// Under the writer lock.
    func recoverIfRefused() throws(Problem) {
        let stored: StateSnapshot?
        do {
            stored = try options.store.recoverAfterRefusal()
        } catch {
            throw Problem.storageUnavailable(error)
        }
        guard let stored else { return }
        let built = ServerState.build(stored)
        let trash = Trash()
        state.withLock { s in trash.keep(s.restore(built)) }
        options.log("state store: memory put back to the stored state after a refused write")
    }

    /// The project's domain state (a copy to mutate), or 404.
    func projectState(_ key: String) throws(Problem) -> ProjectState {
        try withProject(key) { $0.state }
    }
}
