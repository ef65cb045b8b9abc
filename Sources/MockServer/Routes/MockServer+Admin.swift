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
            s.updateProject(key) { project in
                project.faults.append(fault)
                return project.faults
            }
        }
        guard let faults else { throw Problem.unknownProject(key) }
        announce(faults: faults, project: key, armed: fault)
        // 200, not 201: the POST appends to the list resource and answers it; no fault has an
        // address of its own to put in a Location (a Location naming the list made link-following
        // clients such as schemathesis take DELETE …/faults for deleting a created resource).
        return jsonResponse(200, .object([("faults", .array(faults.map(\.json)))]))
    }

    func clearFaults(_ call: Call) throws(Problem) -> HTTPResponse {
        let key = call.project
        let found = state.withLock { s -> Bool in
            s.updateProject(key) { $0.faults.removeAll() } != nil
        }
        guard found else { throw Problem.unknownProject(key) }
        announce(faults: [], project: key, armed: nil)
        return noContent()
    }

    // MARK: Journal

    /// `?project=` names a project that must exist (404 otherwise, like every project
    /// endpoint); `?limit=` is a positive integer (one past `Int.max` still means "all").
    func journal(_ call: Call) throws(Problem) -> HTTPResponse {
        var limit = 100
        if let text = call.request.query("limit") {
            guard let n = Self.positiveInteger(text) else {
                throw Problem.parameter(
                    "limit",
                    .invalid,
                    detail: "limit must be a positive integer, got \"\(text)\"",
                    message: "expected a positive integer"
                )
            }
            limit = n
        }
        let project = call.request.query("project").flatMap { $0.isEmpty ? nil : $0 }
        let entries: [RequestJournal.Entry]? = state.withLock { s in
            if let project, !s.hasProject(project) { return nil }
            return s.journal.newest(limit: limit, project: project)
        }
        guard let entries else { throw Problem.unknownProject(project ?? "") }
        return jsonResponse(200, .object([("requests", .array(entries.map(\.json)))]))
    }

    /// Decimal digits (an optional `+` first) worth at least 1, saturating at `Int.max`.
    static func positiveInteger(_ text: String) -> Int? {
        let digits = text.hasPrefix("+") ? Substring(text.dropFirst()) : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        guard let n = Int(digits) else { return Int.max }
        return n >= 1 ? n : nil
    }

    // MARK: Reset and state

    /// Back to the seed; not a change. The clock keeps its time, unless the body names one
    /// (`{"now": "<time>"}`, manual clock only, backwards too): then the server starts over at
    /// that time, so a harness gives every scenario the same time 0 whatever ran before.
    func reset(_ call: Call) throws(Problem) -> HTTPResponse {
        let restart = try resetClockTarget(call)
        let seed = options.seed
        let capacity = options.journalCapacity
        try write(for: call.commits) { () throws(Problem) in
            let built = ServerState.build(seed)
            let trash = Trash()
            return (
                [.replaced(seed)],
                { s in
                    trash.keep(s.install(built))
                    trash.keep(s.journal)
                    s.journal = RequestJournal(capacity: capacity)
                }, ()
            )
        }
        if let (manual, instant) = restart {
            // The reset cancelled the push timers; live work left is someone else's on a shared clock.
            guard manual.restart(at: instant) else {
                throw Problem(
                    status: 409,
                    title: "Clock has pending timers",
                    detail:
                        "the state is back to the seed, but the clock kept its time \(manual.now.rfc3339): work other than the server's is scheduled on it (devices sharing the clock), and going back would run it late"
                )
            }
            announceClock()
        }
        return jsonResponse(200, .object([("reset", true), ("now", .string(clock.now.rfc3339))]))
    }

    /// The manual clock and the time a reset's body asks to start over at; nil without a body
    /// or without `now`. Checked before anything is reset, so a bad body changes nothing.
    private func resetClockTarget(_ call: Call) throws(Problem) -> (ManualScheduler, Instant)? {
        guard let body = try parseOptionalBody(call) else { return nil }
        guard let object = body.objectValue else {
            throw Problem.field("", "expected {} or {\"now\": \"<time>\"}, found \(body.typeName)", .wrongType)
        }
        let unknown = BodyFields(name: "a reset", writable: ["now"]).problems(in: object)
        if !unknown.isEmpty { throw Problem(ValidationFailure(problems: unknown)) }
        guard let value = object["now"], value != .null else { return nil }
        guard let text = value.stringValue else {
            throw Problem.field("/now", "expected an RFC 3339 time, found \(value.typeName)", .wrongType)
        }
        guard let instant = Instant(rfc3339: text), instant <= Self.latestClockTime else {
            throw Problem.field(
                "/now",
                "\"\(text)\" is not an RFC 3339 time like 2026-12-02T09:01:00.000Z",
                .invalidValue
            )
        }
        guard case .manual(let manual) = options.clock else {
            throw Problem(
                status: 409,
                title: "Clock is not manual",
                detail: "the server runs on the system clock; start it with --clock manual to reset it to a time"
            )
        }
        return (manual, instant)
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
        try write(for: call.commits) { () throws(Problem) in
            let built = ServerState.build(snapshot)
            let trash = Trash()
            return ([.replaced(snapshot)], { s in trash.keep(s.install(built)) }, ())
        }
        return exportState()
    }

    // MARK: Clock

    /// Ten years, the most one `advance_seconds` may move the clock.
    static let maximumClockAdvanceSeconds = 10.0 * 365 * 86_400
    /// The last instant RFC 3339 can write (a four-digit year).
    static let latestClockTime = Instant.rfc3339Range.upperBound

    /// `now`, `mode`, and for a harness in virtual time: `next_deadline`, the manual clock's next
    /// timer (a combined push; null when none or on the system clock), and `pushes_in_flight`,
    /// pushes handed to the gateways whose tokens have not all got a result.
    func clockResponse(_ status: Int) -> HTTPResponse {
        jsonResponse(status, .object(clockFields))
    }

    var clockFields: [(String, JSON)] {
        let reading = clockReading
        return [
            ("now", .string(reading.now.rfc3339)), ("mode", .string(options.clock.isManual ? "manual" : "system")),
            ("next_deadline", reading.nextDeadline.map { .string($0.rfc3339) } ?? .null),
            ("pushes_in_flight", .number(Double(reading.pushesInFlight))),
        ]
    }

    /// Moves the manual clock. Due push timers run inside `advance`, so every push due by the
    /// new time has been recorded (and handed to the sink) when this answers.
    func setClock(_ call: Call) throws(Problem) -> HTTPResponse {
        guard case .manual(let manual) = options.clock else {
            throw Problem(
                status: 409,
                title: "Clock is not manual",
                detail: "the server runs on the system clock; start it with --clock manual to move time"
            )
        }
        let body = try parseBody(call)
        guard let object = body.objectValue else {
            throw Problem.field(
                "",
                "expected {\"advance_seconds\": N} or {\"set\": \"<time>\"}, found \(body.typeName)",
                .wrongType
            )
        }
        let now = manual.now
        let fields = BodyFields(
            name: "a clock move",
            writable: ["advance_seconds", "set"],
            shown: clockFields.map { (key: $0.0, value: $0.1) }
        )
        let unknown = fields.problems(in: object)
        if !unknown.isEmpty { throw Problem(ValidationFailure(problems: unknown)) }
        let target: Instant
        switch (object["advance_seconds"], object["set"]) {
        case (let advance?, nil):
            guard let seconds = advance.numberValue else {
                throw Problem.field(
                    "/advance_seconds",
                    "expected a number of seconds, found \(advance.typeName)",
                    .wrongType
                )
            }
            guard seconds >= 0, seconds <= Self.maximumClockAdvanceSeconds else {
                throw Problem.field(
                    "/advance_seconds",
                    "must be between 0 and ten years (\(Int(Self.maximumClockAdvanceSeconds))); the clock does not go backwards",
                    .invalidValue
                )
            }
            target = now.adding(milliseconds: Int64((seconds * 1000).rounded()))
        case (nil, let set?):
            guard let text = set.stringValue else {
                throw Problem.field("/set", "expected an RFC 3339 time, found \(set.typeName)", .wrongType)
            }
            guard let instant = Instant(rfc3339: text) else {
                throw Problem.field(
                    "/set",
                    "\"\(text)\" is not an RFC 3339 time like 2026-12-02T11:00:00.000Z",
                    .invalidValue
                )
            }
            guard instant >= now else {
                throw Problem.field(
                    "/set",
                    "\(text) is before the clock's time \(now.rfc3339); the clock does not go backwards",
                    .invalidValue
                )
            }
            target = instant
        case (nil, nil):
            throw Problem.field("", "expected {\"advance_seconds\": N} or {\"set\": \"<time>\"}", .missingField)
        default:
            throw Problem.field("/set", "give advance_seconds or set, not both", .invalidValue)
        }
        guard target <= Self.latestClockTime else {
            throw Problem.field(
                object["set"] == nil ? "/advance_seconds" : "/set",
                "the clock cannot pass \(Self.latestClockTime.rfc3339) (times are written with four-digit years)",
                .invalidValue
            )
        }
        manual.advance(to: target)
        announceClock()
        return clockResponse(200)
    }
}
