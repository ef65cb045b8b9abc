import JSON

/// Builds the OpenAPI 3.1 document from the router's table, so every route is in it by
/// construction and ``Endpoint/doc`` supplies the words.
enum OpenAPI {
    /// - Parameter server: the base URL to advertise (the request's own `Host`, when known).
    static func document(router: Router, server: String = "http://127.0.0.1:8080") -> JSON {
        var paths = JSONObject()
        for route in router.routes {
            let doc = route.endpoint.doc
            var operation: [(String, JSON)] = [
                ("operationId", .string(route.endpoint.rawValue)),
                ("summary", .string(doc.summary)),
                ("tags", [.string(route.isAdmin ? "admin" : (route.pattern.hasPrefix("/v1") ? "sdk" : "service"))]),
            ]
            var parameters: [JSON] = route.segments.compactMap { segment in
                guard case .parameter(let name) = segment else { return nil }
                return .object([("name", .string(name)), ("in", "path"), ("required", true),
                                ("schema", .object([("type", "string")]))])
            }
            for q in doc.query {
                var schema: [(String, JSON)] = [("type", "string")]
                if !q.values.isEmpty { schema.append(("enum", .array(q.values.map(JSON.string)))) }
                parameters.append(.object([("name", .string(q.name)), ("in", "query"), ("required", .bool(q.required)),
                                           ("description", .string(q.description)), ("schema", .object(schema))]))
            }
            if !parameters.isEmpty { operation.append(("parameters", .array(parameters))) }
            if let body = doc.body {
                operation.append(("requestBody", .object([
                    ("required", true),
                    ("content", .object([("application/json", .object([("schema", ref(body))]))])),
                ])))
            }
            var responses = JSONObject()
            for (status, description, schema) in doc.responses {
                var response: [(String, JSON)] = [("description", .string(description))]
                if let schema {
                    let type = schema == "Problem" ? "application/problem+json" : "application/json"
                    response.append(("content", .object([(type, .object([("schema", ref(schema))]))])))
                } else if let types = mediaTypes(route.endpoint, status: status) {
                    response.append(("content", .object(types.map { ($0, .object([("schema", .object([("type", "string")]))])) })))
                }
                responses[String(status)] = .object(response)
            }
            if route.isAdmin {
                responses["401"] = .object([("description", "missing or wrong admin token"),
                                            ("content", .object([("application/problem+json", .object([("schema", ref("Problem"))]))]))])
                operation.append(("security", [.object([("adminToken", [])])]))
            }
            operation.append(("responses", .object(responses)))
            var item = paths[route.pattern]?.objectValue ?? JSONObject()
            item[route.method.lowercased()] = .object(operation)
            paths[route.pattern] = .object(item)
        }
        return .object([
            ("openapi", "3.1.0"),
            ("info", .object([
                ("title", "lerix-mock"),
                ("version", "1.0.0"),
                ("description", "A mock of the Lerix release-control backend for SDK development and CI. Times are RFC 3339 UTC with milliseconds; JSON fields are snake_case; every error is application/problem+json."),
            ])),
            ("servers", [.object([("url", .string(server))])]),
            ("paths", .object(paths)),
            ("components", .object([
                ("schemas", schemas),
                ("securitySchemes", .object([("adminToken", .object([
                    ("type", "http"), ("scheme", "bearer"),
                    ("description", "only when the server runs with --admin-token"),
                ]))])),
            ])),
        ])
    }

    /// The media type of a body that is not JSON, for the endpoints that answer one.
    static func mediaTypes(_ endpoint: Endpoint, status: Int) -> [String]? {
        guard status == 200 else { return nil }
        switch endpoint {
        case .index, .health: return ["text/plain"]
        case .events: return ["text/event-stream"]
        case .dashboard: return ["text/html"]
        case .dashboardAsset: return ["text/javascript", "text/css"]
        default: return nil
        }
    }

    static func ref(_ name: String) -> JSON { .object([("$ref", .string("#/components/schemas/" + name))]) }

    static func object(_ properties: [(String, JSON)], required: [String] = []) -> JSON {
        var pairs: [(String, JSON)] = [("type", "object"), ("properties", .object(properties))]
        if !required.isEmpty { pairs.append(("required", .array(required.map(JSON.string)))) }
        return .object(pairs)
    }

    static func type(_ name: String, _ extra: [(String, JSON)] = []) -> JSON { .object([("type", .string(name))] + extra) }
    static let time = type("string", [("format", "date-time")])
    static func nullable(_ schema: JSON) -> JSON { .object([("oneOf", [schema, type("null")])]) }
    static func list(_ key: String, _ item: JSON) -> JSON { object([(key, type("array", [("items", item)]))], required: [key]) }
    /// A ``ListPage`` answer: one page and the link to the next one (null on the last page).
    static func pagedList(_ key: String, _ item: JSON) -> JSON {
        object([(key, type("array", [("items", item)])), ("next", nullable(type("string")))], required: [key, "next"])
    }
    static let platforms = type("array", [("items", type("string", [("enum", ["ios", "android", "macos", "web"])]))])

    static let schemas: JSON = .object([
        ("Problem", object([
            ("type", type("string")), ("title", type("string")), ("status", type("integer")), ("detail", type("string")),
            ("errors", type("array", [("items", object([("pointer", type("string")), ("parameter", type("string")),
                                                         ("message", type("string"))], required: ["message"]))])),
        ], required: ["title", "status", "detail"])),
        ("CheckAnswer", object([
            ("project", type("string")), ("server_time", time), ("lifetime", type("integer", [("enum", [60, 300])])),
            ("required_update", nullable(object([("rule", type("string")), ("below", type("string")),
                                                 ("store_url", type("string")), ("message", type("string"))]))),
            ("optional_update", nullable(object([("rule", type("string")),
                                                 ("kind", type("string", [("enum", ["optional", "recommended"])])),
                                                 ("below", type("string")), ("store_url", type("string")),
                                                 ("message", type("string")), ("becomes_required_on", nullable(time))]))),
            ("maintenance", type("array", [("items", object([("rule", type("string")), ("starts_at", time),
                                                             ("ends_at", time), ("message", type("string"))]))])),
            ("sdk_switch", type("array", [("items", object([("rule", type("string")),
                                                            ("modules", type("array", [("items", type("string"))])),
                                                            ("ends_at", time)]))])),
        ], required: ["project", "server_time", "lifetime", "required_update", "optional_update", "maintenance", "sdk_switch"])),
        ("RuleBody", object([
            ("type", type("string", [("enum", ["required_update", "optional_update", "recommended_update", "maintenance", "sdk_switch"])])),
            ("platforms", platforms), ("below", type("string")), ("store_url", type("string")), ("message", type("string")),
            ("becomes_required_on", time), ("starts_at", time), ("ends_at", time),
            ("sdks", type("array", [("items", object([("name", type("string")), ("below", type("string"))], required: ["name"]))])),
            ("modules", type("array", [("items", type("string", [("enum", ["errors", "analytics", "tracing", "feedback", "surveys", "push_token_registration", "all"])]))])),
        ], required: ["type"])),
        ("Rule", .object([("allOf", [ref("RuleBody"), object([("id", type("string"))], required: ["id"])])])),
        ("RuleList", list("rules", ref("Rule"))),
        ("Change", object([("id", type("integer")), ("at", time), ("blocking", type("boolean"))],
                          required: ["id", "at", "blocking"])),
        ("ChangeList", pagedList("changes", ref("Change"))),
        ("LiftAllResult", object([("lifted", type("array", [("items", ref("Rule"))])), ("change", ref("Change"))])),
        ("ProjectSettings", object([("apns_topic", type("string")), ("fcm_project", type("string"))])),
        ("Project", object([("key", type("string")), ("apns_topic", nullable(type("string"))),
                            ("fcm_project", nullable(type("string"))), ("rules", type("integer")),
                            ("push_tokens", type("integer")), ("last_change_at", nullable(time))])),
        ("ProjectList", list("projects", ref("Project"))),
        ("IngestBatch", type("array")),
        ("IngestAccepted", object([("accepted", type("integer"))])),
        ("IngestCounts", object([("ingest", type("object", [("additionalProperties", type("integer"))]))])),
        ("PushTokenRegistration", object([("platform", type("string", [("enum", ["ios", "android", "macos"])]))], required: ["platform"])),
        ("PushTokenList", pagedList("push_tokens", object([("token", type("string")), ("platform", type("string")),
                                                      ("registered_at", time)]))),
        ("PushList", pagedList("pushes", object([
            ("id", type("integer")), ("sent_at", time), ("changes", type("array", [("items", type("integer"))])),
            ("tokens", type("object", [("additionalProperties", type("integer"))])),
            ("delivered", type("integer")), ("failed", type("integer")), ("pending", type("integer")),
            ("no_gateway", type("integer")),
            ("results", type("array", [("items", object([("token", type("string")), ("platform", type("string")),
                                                         ("result", type("string", [("enum", ["pending", "delivered", "failed", "unregistered", "no_gateway"])])),
                                                         ("reason", type("string"))]))])),
        ]))),
        ("Fault", object([("kind", type("string", [("enum", ["status", "delay", "reset", "malformed", "wrong_types"])])),
                          ("status", type("integer")), ("retry_after", type("integer")), ("seconds", type("number")),
                          ("count", type("integer"))],
                         required: ["kind"])),
        ("FaultList", list("faults", ref("Fault"))),
        ("RequestList", list("requests", object([
            ("at", time), ("project", type("string")),
            ("device", object([("platform", type("string")), ("version", type("string")), ("build", type("string")),
                               ("sdk", type("string")), ("sdk_version", type("string"))])),
            ("status", type("integer")), ("etag", type("string")), ("lifetime", type("integer")), ("fault", type("string")),
        ]))),
        ("ResetResult", object([("reset", type("boolean")), ("now", time)])),
        ("ClockState", object([("now", time), ("mode", type("string", [("enum", ["manual", "system"])]))])),
        ("ClockMove", object([("advance_seconds", type("number")), ("set", time)])),
        ("StateSnapshot", object([("projects", type("array", [("items", object([
            ("key", type("string")), ("apns_topic", type("string")), ("fcm_project", type("string")),
            ("rules", type("array", [("items", ref("RuleBody"))])),
            ("push_tokens", type("array", [("items", object([("token", type("string")), ("platform", type("string"))]))])),
        ], required: ["key"]))]))], required: ["projects"])),
    ])
}
