import JSON
import MockServer

extension StateSnapshot {
    /// The snapshot as rows of JSON, for `.replaced` and for a new file.
    var storedProjects: [StoredProject] {
        projects.map { project in
            var attributes: [(String, JSON)] = []
            if let topic = project.apnsTopic { attributes.append(("apns_topic", .string(topic))) }
            if let fcm = project.fcmProject { attributes.append(("fcm_project", .string(fcm))) }
            return StoredProject(
                key: project.key,
                attributes: .object(attributes),
                rules: project.rules.map { StoredItem(id: $0.id, body: $0.json) },
                changes: project.changes.map { StoredRecord(id: $0.id, body: $0.json) },
                pushTokens: project.pushTokens.map { StoredItem(id: $0.token, body: $0.json) },
                pushes: project.pushes.map { StoredRecord(id: $0.id, body: $0.json) },
                ingest: project.ingest.sorted { $0.key < $1.key }.map {
                    StoredIngestCount(module: $0.key, count: $0.value)
                }
            )
        }
    }

    /// Reads rows back through the same validation `PUT /admin/state` uses, so a file can never
    /// load into a state the admin API could not have made.
    static func restoring(_ projects: [StoredProject], path: String) throws(StateFileError) -> StateSnapshot {
        let json = JSON.object([
            (
                "projects",
                .array(
                    projects.map { project in
                        var pairs: [(String, JSON)] = [("key", .string(project.key))]
                        for (key, value) in project.attributes.objectValue ?? JSONObject()
                        where key == "apns_topic" || key == "fcm_project" {
                            pairs.append((key, value))
                        }
                        pairs.append(("rules", .array(project.rules.map(\.body))))
                        pairs.append(("push_tokens", .array(project.pushTokens.map(\.body))))
                        pairs.append(("changes", .array(project.changes.map(\.body))))
                        pairs.append(("pushes", .array(project.pushes.map(\.body))))
                        pairs.append(("ingest", .object(project.ingest.map { ($0.module, .number(Double($0.count))) })))
                        return .object(pairs)
                    }
                )
            )
        ])
        return try restoring(json, what: "the stored state", path: path)
    }

    static func restoring(_ json: JSON, what: String, path: String) throws(StateFileError) -> StateSnapshot {
        do {
            return try StateSnapshot(json: json)
        } catch {
            let problems = error.problems.prefix(3).map { "\($0.pointer): \($0.message)" }.joined(separator: "; ")
            throw .corrupt(path: path, detail: "\(what) does not read back: \(problems)")
        }
    }
}
