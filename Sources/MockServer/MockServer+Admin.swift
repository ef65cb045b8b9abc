import Clock
import HTTP
import JSON
import ReleaseControl

extension MockServer {
    // MARK: Faults

    func listFaults(_ call: Call) throws(Problem) -> HTTPResponse {
        let faults = try withProject(call.project) { $0.faults }
        return jsonResponse(200, .object([("faults", .array(faults.map(\.json)))]))
    }

    /// Faults are volatile (a restart clears them), so they bypass the store.
    func addFault(_ call: Call) throws(Problem) -> HTTPResponse {
        let fault = try Fault(json: try parseBody(call))
        let key = call.project
        let faults: [Fault]? = state.withLock { s in
            guard s.projects[key] != nil else { return nil }
            s.projects[key]?.faults.append(fault)
            return s.projects[key]?.faults
        }
        guard let faults else { throw Problem.unknownProject(key) }
        announce(faults: faults, project: key)
        return jsonResponse(201, .object([("faults", .array(faults.map(\.json)))]))
    }

    func clearFaults(_ call: Call) throws(Problem) -> HTTPResponse {
        let key = call.project
        let found = state.withLock { s -> Bool in
            guard s.projects[key] != nil else { return false }
            s.projects[key]?.faults.removeAll()
            return true
        }
        guard found else { throw Problem.unknownProject(key) }
        announce(faults: [], project: key)
        return noContent()
    }

    // MARK: Journal

    func journal(_ call: Call) throws(Problem) -> HTTPResponse {
        var limit = 100
        if let text = call.request.query("limit"), !text.isEmpty {
            guard let n = Int(text), n >= 1 else {
                throw Problem(status: 422, title: "Invalid parameter", detail: "limit must be a positive integer, got \"\(text)\"",
                              errors: [.init(parameter: "limit", message: "expected a positive integer")])
            }
            limit = n
        }
        let project = call.request.query("project").flatMap { $0.isEmpty ? nil : $0 }
        let entries = state.withLock { $0.journal.newest(limit: limit, project: project) }
        return jsonResponse(200, .object([("requests", .array(entries.map(\.json)))]))
    }

    // MARK: Reset and state

    /// Back to the seed; not a change, and the clock keeps its time.
    func reset() throws(Problem) -> HTTPResponse {
        let seed = options.seed
        let capacity = options.journalCapacity
        try write { () throws(Problem) in
            let built = ServerState.build(seed)
            let trash = Trash()
            return ([.replaced(seed)], { s in
                trash.keep(s.install(built))
                trash.keep(s.journal)
                s.journal = RequestJournal(capacity: capacity)
            }, ())
        }
        return jsonResponse(200, .object([("reset", true), ("now", .string(clock.now.rfc3339))]))
    }

    func exportState() -> HTTPResponse {
        jsonResponse(200, state.withLock { $0.snapshot }.json)
    }

    /// Replaces everything with a snapshot validated as a whole; a bad one changes nothing.
    func importState(_ call: Call) throws(Problem) -> HTTPResponse {
        let body = try parseBody(call)
        let snapshot: StateSnapshot
        do {
            snapshot = try StateSnapshot(json: body)
        } catch {
            throw Problem(error)
        }
        try write { () throws(Problem) in
            let built = ServerState.build(snapshot)
            let trash = Trash()
            return ([.replaced(snapshot)], { s in trash.keep(s.install(built)) }, ())
        }
        return exportState()
    }

    // MARK: Clock

    func clockResponse(_ status: Int) -> HTTPResponse {
        jsonResponse(status, .object([("now", .string(clock.now.rfc3339)),
                                      ("mode", .string(options.clock.isManual ? "manual" : "system"))]))
    }

    /// Moves the manual clock. Due push timers run inside `advance`, so every push due by the
    /// new time has been recorded (and handed to the sink) when this answers.
    func setClock(_ call: Call) throws(Problem) -> HTTPResponse {
        guard case .manual(let manual) = options.clock else {
            throw Problem(status: 409, title: "Clock is not manual",
                          detail: "the server runs on the system clock; start it with --clock manual to move time")
        }
        let body = try parseBody(call)
        guard let object = body.objectValue else {
            throw Problem.field("", "expected {\"advance_seconds\": N} or {\"set\": \"<time>\"}, found \(body.typeName)", typeError: true)
        }
        for key in object.keys where key != "advance_seconds" && key != "set" {
            throw Problem.field("/" + FieldProblem.escape(key), "unknown field; expected advance_seconds or set", typeError: false)
        }
        let target: Instant
        switch (object["advance_seconds"], object["set"]) {
        case (let advance?, nil):
            guard let seconds = advance.numberValue else {
                throw Problem.field("/advance_seconds", "expected a number of seconds, found \(advance.typeName)", typeError: true)
            }
            guard seconds >= 0, seconds <= 10 * 365 * 86_400 else {
                throw Problem.field("/advance_seconds", "must be between 0 and ten years; the clock does not go backwards", typeError: false)
            }
            target = manual.now.adding(milliseconds: Int64((seconds * 1000).rounded()))
        case (nil, let set?):
            guard let text = set.stringValue else {
                throw Problem.field("/set", "expected an RFC 3339 time, found \(set.typeName)", typeError: true)
            }
            guard let instant = Instant(rfc3339: text) else {
                throw Problem.field("/set", "\"\(text)\" is not an RFC 3339 time like 2026-12-02T11:00:00.000Z", typeError: false)
            }
            guard instant >= manual.now else {
                throw Problem.field("/set", "\(text) is before the clock's time \(manual.now.rfc3339); the clock does not go backwards",
                                    typeError: false)
            }
            target = instant
        case (nil, nil):
            throw Problem.field("", "expected {\"advance_seconds\": N} or {\"set\": \"<time>\"}", typeError: false)
        default:
            throw Problem.field("/set", "give advance_seconds or set, not both", typeError: false)
        }
        manual.advance(to: target)
        announceClock()
        return clockResponse(200)
    }
}
