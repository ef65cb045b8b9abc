import HTTP
import JSON
import ReleaseControl

extension MockServer {
    func projectJSON(_ runtime: ProjectRuntime) -> JSON {
        .object([
            ("key", .string(runtime.key)),
            ("apns_topic", runtime.state.apnsTopic.map(JSON.string) ?? .null),
            ("fcm_project", runtime.state.fcmProject.map(JSON.string) ?? .null),
            ("rules", .number(Double(runtime.state.rules.count))),
            ("changes", .number(Double(runtime.state.changes.count))),
            ("push_tokens", .number(Double(runtime.tokens.count))),
            ("pushes", .number(Double(runtime.pushes.count))),
            ("last_change_at", runtime.state.lastChangeAt.map { .string($0.rfc3339) } ?? .null),
        ])
    }

    func listProjects() -> HTTPResponse {
        let projects: [JSON] = state.withLock { s in s.order.compactMap { s.projects[$0] }.map(projectJSON) }
        return jsonResponse(200, .object([("projects", .array(projects))]))
    }

    func getProject(_ call: Call) throws(Problem) -> HTTPResponse {
        jsonResponse(200, try withProject(call.project) { projectJSON($0) })
    }

    /// `PUT /admin/projects/{project}`: creates the project (201) or updates its push settings (200).
    /// Not a release-control change.
    func putProject(_ call: Call) throws(Problem) -> HTTPResponse {
        let key = call.project
        guard StateSnapshot.isValidProjectKey(key) else {
            throw Problem.parameter(
                "project",
                .invalid,
                detail: "\"\(key)\" is not a project key: \(StateSnapshot.projectKeyRule)",
                message: StateSnapshot.projectKeyRule
            )
        }
        var body = JSONObject()
        if let json = try parseOptionalBody(call) {
            guard let object = json.objectValue else {
                throw Problem.field(
                    "",
                    "expected {\"apns_topic\", \"fcm_project\"}, found \(json.typeName)",
                    .wrongType
                )
            }
            body = object
        }
        var problems: [FieldProblem] = []
        var settings: [String: String?] = [:]
        for field in ["apns_topic", "fcm_project"] {
            switch body[field] {  // GET shows both, so null clears one
            case nil: break
            case .null?: settings[field] = .some(nil)
            case .string(let text)?:
                if text.isEmpty {
                    problems.append(
                        FieldProblem(
                            pointer: "/" + field,
                            message: "must not be empty (send null to clear it)",
                            kind: .invalidValue
                        )
                    )
                }
                settings[field] = text
            case let other?:
                problems.append(
                    FieldProblem(
                        pointer: "/" + field,
                        message: "expected a string or null, found \(other.typeName)",
                        kind: .wrongType
                    )
                )
            }
        }
        let (created, json) = try write(for: call.commits) { () throws(Problem) in
            let existing = state.withLock { $0.projects[key] }
            let stamp = state.withLock { $0.takeStamp() }
            var runtime = existing ?? ProjectRuntime(StateSnapshot.Project(key: key), stamp: stamp)
            // What GET shows may come back unchanged; only the push settings are written.
            let writable = ["apns_topic", "fcm_project"]
            let shown = (projectJSON(runtime).objectValue ?? JSONObject()).pairs.filter { !writable.contains($0.key) }
            let fields = BodyFields(
                name: "a project's settings",
                writable: writable,
                shown: shown.map { (key: $0.key, value: $0.value) }
            )
            let all = fields.problems(in: body) + problems
            if !all.isEmpty { throw Problem(ValidationFailure(problems: all)) }
            if let topic = settings["apns_topic"] { runtime.state.apnsTopic = topic }
            if let project = settings["fcm_project"] { runtime.state.fcmProject = project }
            let updated = runtime
            let event = StateEvent.projectUpserted(
                key: key,
                apnsTopic: updated.state.apnsTopic,
                fcmProject: updated.state.fcmProject
            )
            if existing != nil {
                return (
                    [event],
                    { s in
                        s.projects[key]?.state.apnsTopic = updated.state.apnsTopic
                        s.projects[key]?.state.fcmProject = updated.state.fcmProject
                    }, (false, projectJSON(updated))
                )
            }
            return (
                [event],
                { s in
                    s.projects[key] = updated
                    s.order.append(key)
                }, (true, projectJSON(updated))
            )
        }
        var headers = HTTPHeaders()
        if created { headers.set("Location", "/admin/projects/\(key)") }
        return jsonResponse(created ? 201 : 200, json, headers: headers)
    }

    func ingest(_ call: Call) throws(Problem) -> HTTPResponse {
        let key = call.project
        let module = call["module"]
        let modules = SDKModule.ingestModules.map(\.rawValue)
        guard state.withLock({ $0.hasProject(key) }) else { throw Problem.unknownProject(key) }
        guard modules.contains(module) else {
            let message = "unknown module \"\(module)\"" + KeySuggestion.hint(for: module, in: modules)
            throw Problem.parameter("module", .invalid, detail: message, message: message)
        }
        let body = try parseBody(call)
        guard let items = body.arrayValue else {
            throw Problem.field("", "expected a JSON array of items, found \(body.typeName)", .wrongType)
        }
        try write(for: call.commits) { () throws(Problem) in
            guard let current = state.withLock({ $0.updateProject(key) { $0.ingest[module] ?? 0 } }) else {
                throw Problem.unknownProject(key)
            }
            // Saturates where a snapshot's bound is, so an export always imports back.
            let total = min(current + items.count, StateSnapshot.maximumIngestCount)
            return (
                [.ingestCounted(project: key, module: module, total: total)],
                { s in s.projects[key]?.ingest[module] = total }, ()
            )
        }
        return jsonResponse(202, .object([("accepted", .number(Double(items.count)))]))
    }

    func ingestCounts(_ call: Call) throws(Problem) -> HTTPResponse {
        let counts = try withProject(call.project) { $0.ingest }
        let pairs: [(String, JSON)] = counts.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) }
        return jsonResponse(200, .object([("ingest", .object(pairs))]))
    }
}
