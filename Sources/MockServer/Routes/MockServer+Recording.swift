import Clock
import HTTP
import JSON
import ReleaseControl

/// `serve --record FILE` and `/admin/recording`: a manual session becomes a scenario
/// (``SessionRecorder``). Off, it costs the check path one relaxed atomic load.
extension MockServer {
    /// Starts recording `project` from now; 409 when a recording runs, 404 for an unknown project.
    public func startRecording(project: String) throws(Problem) -> JSON {
        let now = clock.now
        let started: Bool = try recording.withLock { (current: inout SessionRecorder?) throws(Problem) -> Bool in
            guard current == nil else { return false }
            guard let rules = state.withLock({ $0.updateProject(project) { $0.state.rules } }) else {
                throw Problem.unknownProject(project)
            }
            current = SessionRecorder(project: project, start: now, rules: rules)
            return true
        }
        guard started else {
            throw Problem(
                status: 409,
                title: "Already recording",
                detail: "a recording is running; DELETE /admin/recording stops it and returns the scenario"
            )
        }
        isRecording.store(true, ordering: .relaxed)
        return recordingJSON()
    }

    /// Stops recording; the scenario as YAML, or nil when none ran. `serve --record` writes it.
    public func stopRecording() -> String? {
        let now = clock.now
        isRecording.store(false, ordering: .relaxed)
        let yaml = recording.withLock { current -> String? in
            defer { current = nil }
            return current?.yaml(now: now)
        }
        if let yaml { options.recordingStopped?(yaml) }
        return yaml
    }

    /// `{recording, project, started_at, steps, devices, scenario}`.
    func recordingJSON(stoppedScenario: String? = nil) -> JSON {
        let now = clock.now
        return recording.withLock { current in
            guard let r = current else {
                return .object([
                    ("recording", false), ("project", .null), ("started_at", .null), ("steps", 0), ("devices", 0),
                    ("scenario", stoppedScenario.map(JSON.string) ?? .null),
                ])
            }
            return .object([
                ("recording", true), ("project", .string(r.project)), ("started_at", .string(r.start.rfc3339)),
                ("steps", .number(Double(r.stepCount))), ("devices", .number(Double(r.deviceCount))),
                ("scenario", .string(r.yaml(now: now))),
            ])
        }
    }

    // MARK: Endpoints

    func postRecording(_ call: Call) throws(Problem) -> HTTPResponse {
        let body = try parseOptionalBody(call) ?? .object([])
        guard let object = body.objectValue else {
            throw Problem.field(
                "",
                "expected a JSON object such as {\"project\": \"demo\"}, found \(body.typeName)",
                .wrongType
            )
        }
        if let problem = BodyFields(name: "a recording", writable: ["project"]).problems(in: object).first {
            throw Problem.field(problem.pointer, problem.message, problem.kind)
        }
        var project = StateSnapshot.defaultProjectKey
        switch object["project"] {
        case nil, .null?: break
        case .string(let key)?: project = key
        case let other?:
            throw Problem.field("/project", "project must be a string, found \(other.typeName)", .wrongType)
        }
        let started = try startRecording(project: project)
        var headers = HTTPHeaders()
        headers.set("Location", "/admin/recording")
        return jsonResponse(201, started, headers: headers)
    }

    func getRecording() -> HTTPResponse { jsonResponse(200, recordingJSON()) }

    func deleteRecording() -> HTTPResponse {
        let yaml = stopRecording()
        return jsonResponse(200, recordingJSON(stoppedScenario: yaml))
    }

    // MARK: Hooks

    func recordCheck(_ entry: RequestJournal.Entry, answer: ServedAnswer?, serverTime: String) {
        let json = answer.flatMap { try? JSON.parse($0.body(project: entry.project, serverTimeText: serverTime)) }
        recording.withLock { $0?.check(entry, answer: json) }
    }

    func recordEvents(_ events: [StateEvent]) {
        let now = clock.now
        recording.withLock { $0?.record(events, at: now) }
    }

    func recordFaults(armed: Fault?, project: String) {
        let now = clock.now
        recording.withLock { recorder in
            if let armed {
                recorder?.faultArmed(armed, project: project, at: now)
            } else {
                recorder?.faultsCleared(project: project, at: now)
            }
        }
    }
}
