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
            throw Problem(status: 422, title: "Invalid project key", detail: "\"\(key)\" is not a project key: \(StateSnapshot.projectKeyRule)",
                          errors: [.init(parameter: "project", message: StateSnapshot.projectKeyRule)])
        }
        var apnsTopic: String?, fcmProject: String?
        var given: Set<String> = []
        if let body = try parseOptionalBody(call) {
            guard let object = body.objectValue else {
                throw Problem.field("", "expected {\"apns_topic\", \"fcm_project\"}, found \(body.typeName)", typeError: true)
            }
            for (field, value) in object {
                switch (field, value) {
                case ("apns_topic", .string(let s)), ("fcm_project", .string(let s)):
                    if s.isEmpty { throw Problem.field("/" + field, "must not be empty (send null to clear it)", typeError: false) }
                    if field == "apns_topic" { apnsTopic = s } else { fcmProject = s }
                    given.insert(field)
                case ("apns_topic", .null), ("fcm_project", .null):
                    given.insert(field)
                case ("apns_topic", _), ("fcm_project", _):
                    throw Problem.field("/" + field, "expected a string or null, found \(value.typeName)", typeError: true)
                default:
                    throw Problem.field("/" + FieldProblem.escape(field), "unknown field; expected apns_topic or fcm_project", typeError: false)
                }
            }
        }
        let (created, json) = try write { () throws(Problem) in
            let existing = state.withLock { $0.projects[key] }
            let stamp = state.withLock { $0.takeStamp() }
            if var runtime = existing {
                if given.contains("apns_topic") { runtime.state.apnsTopic = apnsTopic }
                if given.contains("fcm_project") { runtime.state.fcmProject = fcmProject }
                let updated = runtime.state
                let event = StateEvent.projectUpserted(key: key, apnsTopic: updated.apnsTopic, fcmProject: updated.fcmProject)
                return ([event], { s in
                    s.projects[key]?.state.apnsTopic = updated.apnsTopic
                    s.projects[key]?.state.fcmProject = updated.fcmProject
                }, (false, projectJSON(runtime)))
            }
            let runtime = ProjectRuntime(StateSnapshot.Project(key: key, apnsTopic: apnsTopic, fcmProject: fcmProject), stamp: stamp)
            return ([.projectUpserted(key: key, apnsTopic: apnsTopic, fcmProject: fcmProject)], { s in
                s.projects[key] = runtime
                s.order.append(key)
            }, (true, projectJSON(runtime)))
        }
        var headers = HTTPHeaders()
        if created { headers.set("Location", "/admin/projects/\(key)") }
        return jsonResponse(created ? 201 : 200, json, headers: headers)
    }

    func ingest(_ call: Call) throws(Problem) -> HTTPResponse {
        let key = call.project, module = call["module"]
        let modules = SDKModule.ingestModules.map(\.rawValue)
        guard state.withLock({ $0.projects[key] != nil }) else { throw Problem.unknownProject(key) }
        guard modules.contains(module) else {
            throw Problem(status: 422, title: "Unknown module",
                          detail: "unknown module \"\(module)\"; expected one of \(modules.joined(separator: ", "))",
                          errors: [.init(parameter: "module", message: "unknown module \"\(module)\"")])
        }
        let body = try parseBody(call)
        guard let items = body.arrayValue else {
            throw Problem.field("", "expected a JSON array of items, found \(body.typeName)", typeError: true)
        }
        try write { () throws(Problem) in
            guard let current = state.withLock({ $0.projects[key].map { $0.ingest[module] ?? 0 } }) else {
                throw Problem.unknownProject(key)
            }
            let total = current + items.count
            return ([.ingestCounted(project: key, module: module, total: total)], { s in s.projects[key]?.ingest[module] = total }, ())
        }
        return jsonResponse(202, .object([("accepted", .number(Double(items.count)))]))
    }

    func ingestCounts(_ call: Call) throws(Problem) -> HTTPResponse {
        let counts = try withProject(call.project) { $0.ingest }
        let pairs: [(String, JSON)] = counts.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) }
        return jsonResponse(200, .object([("ingest", .object(pairs))]))
    }
}
