import JSON
import ReleaseControl

/// Builds the OpenAPI 3.1 document from the router's table, so every route is in it by
/// construction and ``Endpoint/doc`` supplies the words.
///
/// The document describes this server instance exactly: the admin token's security and 401
/// answers appear only when it runs with `--admin-token`, `null` appears wherever the server
/// sends it, and request schemas are as tight as the validation (closed objects, minimum
/// lengths and counts, the version and project-key patterns), so a body the schema allows is
/// one the server accepts, except for rules JSON Schema cannot state (a window's end after its
/// start, a clock that does not go backwards), which answer 422.
enum OpenAPI {
    /// - Parameters:
    ///   - server: the base URL to advertise (the request's own `Host`, when known).
    ///   - adminToken: whether the server requires the admin token (`--admin-token`).
    static func document(router: Router, server: String = "http://127.0.0.1:8080", adminToken: Bool = false) -> JSON {
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
                return .object([
                    ("name", .string(name)), ("in", "path"), ("required", true),
                    ("schema", pathParameterSchema(name, endpoint: route.endpoint)),
                ])
            }
            for q in doc.query {
                parameters.append(
                    .object([
                        ("name", .string(q.name)), ("in", "query"), ("required", .bool(q.required)),
                        ("description", .string(q.description)), ("schema", q.schema),
                    ])
                )
            }
            if !parameters.isEmpty { operation.append(("parameters", .array(parameters))) }
            if let body = doc.body {
                operation.append(
                    (
                        "requestBody",
                        .object([
                            ("required", .bool(doc.bodyRequired)),
                            ("content", .object([("application/json", .object([("schema", ref(body))]))])),
                        ])
                    )
                )
            }
            var responses = JSONObject()
            for (status, description, schema) in doc.responses {
                var response: [(String, JSON)] = [("description", .string(description))]
                if let schema {
                    let type = schema == "Problem" ? "application/problem+json" : "application/json"
                    response.append(("content", .object([(type, .object([("schema", ref(schema))]))])))
                } else if let types = mediaTypes(route.endpoint, status: status) {
                    // An event stream is a sequence: OpenAPI 3.2's itemSchema describes each event.
                    response.append(
                        (
                            "content",
                            .object(
                                types.map { media in
                                    (
                                        media,
                                        .object([
                                            media == "text/event-stream"
                                                ? ("itemSchema", eventItem) : ("schema", type("string"))
                                        ])
                                    )
                                }
                            )
                        )
                    )
                }
                responses[String(status)] = .object(response)
            }
            if parameters.contains(where: { $0["in"] == "path" }), responses["422"] == nil {
                responses["422"] = problemResponse("a path parameter holds a control character")
            }
            // The transport's limits, on every operation (contract "Errors").
            responses["414"] = problemResponse("the request target is over 8 KiB")
            if doc.body != nil { responses["413"] = problemResponse("the body is over 1 MiB") }
            if route.isAdmin {
                if responses["422"] == nil {
                    responses["422"] = problemResponse(
                        "an unknown query parameter (the admin API reads only those listed)"
                    )
                }
                responses["403"] = problemResponse(
                    "a Host other than an IP address, localhost or an --allow-host name, or a request from another origin (Origin, Sec-Fetch-Site)"
                )
                if route.method != "GET" && route.method != "HEAD" {
                    responses["415"] = problemResponse("a body whose Content-Type is not application/json")
                }
                if adminToken {
                    responses["401"] = problemResponse("missing or wrong admin token")
                    operation.append(("security", [.object([("adminToken", [])])]))
                }
            }
            operation.append(("responses", .object(responses)))
            var item = paths[route.pattern]?.objectValue ?? JSONObject()
            item[route.method.lowercased()] = .object(operation)
            paths[route.pattern] = .object(item)
        }
        var components: [(String, JSON)] = [("schemas", schemas)]
        if adminToken {
            components.append(
                (
                    "securitySchemes",
                    .object([
                        (
                            "adminToken",
                            .object([
                                ("type", "http"), ("scheme", "bearer"),
                                (
                                    "description",
                                    "this server runs with --admin-token: every /admin request needs Authorization: Bearer <token>"
                                ),
                            ])
                        )
                    ])
                )
            )
        }
        return .object([
            ("openapi", "3.2.0"),
            (
                "info",
                .object([
                    ("title", "lerix-mock"),
                    ("version", "1.0.0"),
                    (
                        "description",
                        .string(
                            "A mock of the Lerix release-control backend for SDK development and CI. Times are RFC 3339 UTC with milliseconds; "
                                + "JSON fields are snake_case; every error is application/problem+json. Admin bodies are closed: an unknown key is a 422 "
                                + "that suggests the nearest known one; fields an answer shows (an id, counts) may be sent back unchanged. "
                                + (adminToken
                                    ? "This server requires the admin token on /admin."
                                    : "This server runs without an admin token.")
                        )
                    ),
                ])
            ),
            ("servers", [.object([("url", .string(server))])]),
            ("paths", .object(paths)),
            ("components", .object(components)),
        ])
    }

    /// The media type of a body that is not JSON, for the endpoints that answer one.
    static func mediaTypes(_ endpoint: Endpoint, status: Int) -> [String]? {
        guard status == 200 else { return nil }
        switch endpoint {
        case .index, .health: return ["text/plain"]
        case .events: return ["text/event-stream"]
        case .dashboard: return ["text/html"]
        case .dashboardAsset: return ["text/javascript", "text/css", "text/html"]
        default: return nil
        }
    }

    /// One event of `GET /admin/events` as an SSE reader parses it: `event` names its kind,
    /// `data` is one line of JSON, the first carries `retry`, and stored writes carry an `id`.
    static let eventItem = object(
        [
            ("event", type("string", [("enum", .array(EventFeed.kinds.map(JSON.string)))])),
            ("data", type("string", [("contentMediaType", "application/json")])),
            ("retry", type("integer", [("minimum", 0)])),
            ("id", type("string", [("pattern", "^[0-9]+$")])),
        ],
        required: ["event", "data"]
    )

    static func problemResponse(_ description: String) -> JSON {
        .object([
            ("description", .string(description)),
            ("content", .object([("application/problem+json", .object([("schema", ref("Problem"))]))])),
        ])
    }

    static func pathParameterSchema(_ name: String, endpoint: Endpoint) -> JSON {
        switch name {
        case "project":
            return type("string", [("pattern", .string(StateSnapshot.projectKeyPattern)), ("examples", ["demo"])])
        case "module":
            return type("string", [("enum", .array(["errors", "analytics", "tracing", "feedback", "surveys"]))])
        case "token": return token
        case "push": return integer(1, ListPage.maximumCursor)
        case "asset":
            return type(
                "string",
                [
                    ("minLength", 1), ("pattern", identifierPattern),
                    ("examples", .array(MockServer.dashboardAssets.keys.sorted().map(JSON.string))),
                ]
            )
        default: return type("string", [("minLength", 1), ("maxLength", 256), ("pattern", identifierPattern)])
        }
    }

    // MARK: Schema building blocks

    static func ref(_ name: String) -> JSON { .object([("$ref", .string("#/components/schemas/" + name))]) }

    /// A closed object: keys outside `properties` are refused, as the server refuses them.
    static func object(_ properties: [(String, JSON)], required: [String] = [], closed: Bool = true) -> JSON {
        var pairs: [(String, JSON)] = [("type", "object"), ("properties", .object(properties))]
        if !required.isEmpty { pairs.append(("required", .array(required.map(JSON.string)))) }
        if closed { pairs.append(("additionalProperties", false)) }
        return .object(pairs)
    }

    /// An answer's object: closed, and every key always sent.
    static func answer(_ properties: [(String, JSON)], optional: [String] = []) -> JSON {
        object(properties, required: properties.map(\.0).filter { !optional.contains($0) })
    }

    static func type(_ name: String, _ extra: [(String, JSON)] = []) -> JSON {
        .object([("type", .string(name))] + extra)
    }
    /// A change or push id as the store keeps it: positive (IncreasingIDs).
    static let storedID = integer(1, ListPage.maximumCursor)
    /// A field only the server sets (OpenAPI's readOnly): shown in answers, never invented in a request.
    static func readOnly(_ schema: JSON) -> JSON {
        guard case .object(var o) = schema else { return schema }
        o["readOnly"] = true
        return .object(o)
    }
    static func nullable(_ schema: JSON) -> JSON {
        if case .object(var o) = schema, case .string(let name)? = o["type"] {
            o["type"] = [.string(name), "null"]
            if case .array(let values)? = o["enum"] { o["enum"] = .array(values + [.null]) }
            return .object(o)
        }
        return .object([("anyOf", [schema, type("null")])])
    }
    static func array(_ item: JSON, minItems: Int = 0, uniqueItems: Bool = false) -> JSON {
        var extra: [(String, JSON)] = [("items", item)]
        if minItems > 0 { extra.append(("minItems", .number(Double(minItems)))) }
        if uniqueItems { extra.append(("uniqueItems", true)) }
        return type("array", extra)
    }
    static func integer(_ minimum: Int, _ maximum: Int) -> JSON {
        type("integer", [("minimum", .number(Double(minimum))), ("maximum", .number(Double(maximum)))])
    }
    static func list(_ key: String, _ item: JSON) -> JSON { answer([(key, array(item))]) }
    static func constant(_ value: String) -> JSON { type("string", [("const", .string(value))]) }

    static let time = type("string", [("format", "date-time")])
    /// A ``ListPage`` answer: one page and the link to the next one (null on the last page).
    static func pagedList(_ key: String, _ item: JSON) -> JSON {
        answer([(key, array(item)), ("next", nullable(type("string")))])
    }
    /// ``Identifier``'s rule: no C0, DEL or C1 control characters.
    static let identifierPattern: JSON = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"
    static let identifier = type("string", [("pattern", identifierPattern)])
    /// ``PushTokens``' rule.
    static let token = type(
        "string",
        [
            ("minLength", 1), ("maxLength", .number(Double(PushTokens.maximumLength))),
            ("pattern", identifierPattern),
        ]
    )
    static let count = type("integer", [("minimum", 0)])
    static let nonEmpty = type("string", [("minLength", 1)])
    /// `N(.N)*(-pre)?(+build)?`, as ``Version`` parses it.
    static let version = type(
        "string",
        [
            (
                "pattern",
                "^[0-9]+(\\.[0-9]+)*(-[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?(\\+[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?$"
            ),
            ("maxLength", .number(Double(Version.maximumLength))),
        ]
    )
    static let projectKey = type("string", [("pattern", .string(StateSnapshot.projectKeyPattern))])
    static let platform = type("string", [("enum", .array(Platform.allCases.map { .string($0.rawValue) }))])
    static let pushPlatform = type("string", [("enum", .array(Platform.pushPlatforms.map { .string($0.rawValue) }))])
    /// Each platform and module at most once (a repeat is a 422, not merged).
    static let platforms = array(platform, minItems: 1, uniqueItems: true)
    static let modules = array(
        type("string", [("enum", .array(SDKModule.allCases.map { .string($0.rawValue) }))]),
        minItems: 1,
        uniqueItems: true
    )
    static let sdks = array(
        object([("name", nonEmpty), ("below", nullable(version))], required: ["name"]),
        minItems: 1
    )

    /// One rule type's body. `answer`: as the API shows it (every key, `null` for absent,
    /// with its id); `id`: a request that may carry an id (a snapshot's rules).
    static func rule(_ type: RuleType, answer isAnswer: Bool, id: JSON? = nil) -> JSON {
        func optional(_ schema: JSON) -> JSON { nullable(schema) }
        var properties: [(String, JSON)] = []
        if isAnswer { properties.append(("id", nonEmpty)) } else if let id { properties.append(("id", id)) }
        properties.append(("type", constant(type.rawValue)))
        var required = ["type"]
        switch type {
        case .requiredUpdate, .optionalUpdate, .recommendedUpdate:
            properties += [
                ("platforms", optional(platforms)), ("below", version), ("store_url", optional(OpenAPI.type("string"))),
                ("message", optional(OpenAPI.type("string"))),
            ]
            required.append("below")
            if type == .recommendedUpdate {
                properties.append(("becomes_required_on", time))
                required.append("becomes_required_on")
            }
        case .maintenance:
            properties += [
                ("platforms", optional(platforms)), ("starts_at", time), ("ends_at", time),
                ("message", optional(OpenAPI.type("string"))),
            ]
            required += ["starts_at", "ends_at"]
        case .sdkSwitch:
            properties += [("sdks", optional(sdks)), ("modules", modules), ("ends_at", time)]
            required += ["modules", "ends_at"]
        }
        return isAnswer ? answer(properties) : object(properties, required: required)
    }

    static func oneOfRules(answer: Bool, id: JSON? = nil) -> JSON {
        .object([("oneOf", .array(RuleType.allCases.map { rule($0, answer: answer, id: id) }))])
    }

    /// A change as `GET …/changes` shows it, or as a snapshot may bring it back (`rule` may be left out).
    static func change(answer isAnswer: Bool) -> JSON {
        answer(
            [
                ("id", storedID), ("at", time),
                ("kind", type("string", [("enum", ["created", "updated", "deleted", "lifted_all"])])),
                ("action", type("string")), ("rule", nullable(identifier)), ("lifted", array(identifier)),
                ("blocking", type("boolean")),
            ],
            optional: isAnswer ? ["lifted"] : ["lifted", "rule"]
        )
    }

    /// A push record as the state export shows it, or as a snapshot brings it back: the counts
    /// are derived from `results`, so they may be left out (or repeat what the export showed).
    static func push(answer isAnswer: Bool) -> JSON {
        let counts = ["tokens", "delivered", "failed", "pending", "no_gateway"]
        // The counts follow from `results`: the server sets them, so a body may only leave them out
        // (or repeat what the export showed); readOnly tells generators not to invent them.
        func derived(_ schema: JSON) -> JSON { isAnswer ? readOnly(schema) : readOnly(nullable(schema)) }
        return answer(
            [
                ("id", storedID), ("sent_at", time), ("changes", array(storedID)),
                ("tokens", derived(pushTokenCounts)),
                ("delivered", derived(count)), ("failed", derived(count)), ("pending", derived(count)),
                ("no_gateway", derived(count)),
                ("results", array(pushResult)),
            ],
            optional: isAnswer ? [] : counts
        )
    }

    static let pushTokenCounts = object(Platform.pushPlatforms.map { ($0.rawValue, count) })

    /// One token's result, in a push's results page and in the state export.
    static let pushResult = answer(
        [
            ("token", token), ("platform", pushPlatform),
            ("result", type("string", [("enum", .array(MockServer.resultNames.map(JSON.string)))])),
            ("reason", type("string")),
        ],
        optional: ["reason"]
    )

    /// A push as `GET …/pushes` lists it: the counts and where its results are.
    static let pushSummary = answer([
        ("id", type("integer")), ("sent_at", time), ("changes", array(type("integer"))), ("tokens", pushTokenCounts),
        ("delivered", count), ("failed", count), ("pending", count), ("no_gateway", count),
        ("results_url", type("string")),
    ])

    static let tokenRecord = answer(
        [("token", token), ("platform", pushPlatform), ("registered_at", time)],
        optional: ["registered_at"]
    )

    /// A snapshot as `PUT /admin/state` and `--config` read it (`answer: false`) or as
    /// `GET /admin/state` writes it.
    static func snapshot(answer isAnswer: Bool) -> JSON {
        // A snapshot read in treats null as absent, for the lists too.
        func input(_ schema: JSON) -> JSON { isAnswer ? schema : nullable(schema) }
        let setting = isAnswer ? nullable(type("string")) : nullable(nonEmpty)
        let ingestCount = integer(0, StateSnapshot.maximumIngestCount)
        let properties: [(String, JSON)] = [
            ("key", projectKey), ("apns_topic", setting), ("fcm_project", setting),
            (
                "rules",
                input(
                    array(
                        isAnswer
                            ? oneOfRules(answer: true)
                            : oneOfRules(
                                answer: false,
                                id: nullable(type("string", [("minLength", 1), ("pattern", identifierPattern)]))
                            )
                    )
                )
            ),
            (
                "push_tokens",
                input(
                    array(
                        isAnswer
                            ? tokenRecord
                            : object(
                                [
                                    ("token", token), ("platform", pushPlatform),
                                    ("registered_at", nullable(time)),
                                ],
                                required: ["token", "platform"]
                            )
                    )
                )
            ),
            ("changes", input(array(change(answer: isAnswer)))), ("pushes", input(array(push(answer: isAnswer)))),
            ("ingest", input(object(SDKModule.ingestModules.map { ($0.rawValue, ingestCount) }))),
        ]
        let project = isAnswer ? answer(properties) : object(properties, required: ["key"])
        return object([("projects", array(project))], required: ["projects"])
    }

    static let schemas: JSON = .object([
        (
            "Problem",
            object(
                [
                    ("type", type("string")), ("title", type("string")), ("status", integer(400, 599)),
                    ("detail", type("string")),
                    (
                        "errors",
                        array(
                            object(
                                [
                                    ("pointer", type("string")), ("parameter", type("string")),
                                    ("message", type("string")),
                                ],
                                required: ["message"]
                            )
                        )
                    ),
                ],
                required: ["title", "status", "detail"]
            )
        ),
        (
            "CheckAnswer",
            answer([
                ("project", type("string")), ("server_time", time),
                ("lifetime", type("integer", [("enum", [60, 300])])),
                (
                    "required_update",
                    nullable(
                        answer([
                            ("rule", type("string")), ("below", version),
                            ("store_url", nullable(type("string"))), ("message", nullable(type("string"))),
                        ])
                    )
                ),
                (
                    "optional_update",
                    nullable(
                        answer([
                            ("rule", type("string")),
                            ("kind", type("string", [("enum", ["optional", "recommended"])])),
                            ("below", version), ("store_url", nullable(type("string"))),
                            ("message", nullable(type("string"))), ("becomes_required_on", nullable(time)),
                        ])
                    )
                ),
                (
                    "maintenance",
                    array(
                        answer([
                            ("rule", type("string")), ("starts_at", time),
                            ("ends_at", time), ("message", nullable(type("string"))),
                        ])
                    )
                ),
                ("sdk_switch", array(answer([("rule", type("string")), ("modules", modules), ("ends_at", time)]))),
            ])
        ),
        ("RuleBody", oneOfRules(answer: false)),
        ("Rule", oneOfRules(answer: true)),
        ("RuleList", list("rules", ref("Rule"))),
        ("Change", change(answer: true)),
        ("ChangeList", pagedList("changes", ref("Change"))),
        ("LiftAllResult", answer([("lifted", array(ref("Rule"))), ("change", ref("Change"))])),
        ("ProjectSettings", object([("apns_topic", nullable(nonEmpty)), ("fcm_project", nullable(nonEmpty))])),
        (
            "Project",
            answer([
                ("key", projectKey), ("apns_topic", nullable(type("string"))),
                ("fcm_project", nullable(type("string"))), ("rules", count), ("changes", count),
                ("push_tokens", count), ("pushes", count), ("last_change_at", nullable(time)),
            ])
        ),
        ("ProjectList", list("projects", ref("Project"))),
        ("IngestBatch", type("array")),
        ("IngestAccepted", answer([("accepted", count)])),
        ("IngestCounts", answer([("ingest", type("object", [("additionalProperties", count)]))])),
        // An SDK endpoint: keys beyond platform are ignored, since SDKs add new ones.
        ("PushTokenRegistration", object([("platform", pushPlatform)], required: ["platform"], closed: false)),
        ("PushTokenList", pagedList("push_tokens", tokenRecord)),
        ("PushSummary", pushSummary),
        ("PushList", pagedList("pushes", ref("PushSummary"))),
        ("PushResultList", pagedList("results", pushResult)),
        (
            "Fault",
            .object([
                (
                    "oneOf",
                    [
                        object(
                            [
                                ("kind", constant("status")), ("status", integer(400, 599)),
                                ("retry_after", nullable(integer(0, Fault.maximumRetryAfter))), ("count", faultCount),
                            ],
                            required: ["kind", "status"]
                        ),
                        object(
                            [
                                ("kind", constant("delay")),
                                (
                                    "seconds",
                                    type("number", [("minimum", 0), ("maximum", .number(Fault.maximumDelaySeconds))])
                                ),
                                ("count", faultCount),
                            ],
                            required: ["kind", "seconds"]
                        ),
                        object(
                            [
                                ("kind", type("string", [("enum", ["reset", "malformed", "wrong_types"])])),
                                ("count", faultCount),
                            ],
                            required: ["kind"]
                        ),
                    ]
                )
            ])
        ),
        ("FaultList", list("faults", ref("Fault"))),
        (
            "RequestList",
            list(
                "requests",
                answer([
                    ("at", time), ("project", type("string")),
                    (
                        "device",
                        answer([
                            ("platform", nullable(type("string"))), ("version", nullable(type("string"))),
                            ("build", nullable(type("string"))), ("sdk", nullable(type("string"))),
                            ("sdk_version", nullable(type("string"))),
                        ])
                    ),
                    ("status", type("integer")), ("etag", nullable(type("string"))),
                    ("lifetime", nullable(type("integer"))),
                    ("fault", nullable(type("string"))),
                ])
            )
        ),
        ("ResetResult", answer([("reset", type("boolean")), ("now", time)])),
        ("ResetRequest", object([("now", nullable(time))], required: [])),
        (
            "ClockState",
            answer([
                ("now", time), ("mode", type("string", [("enum", ["manual", "system"])])),
                ("next_deadline", nullable(time)), ("pushes_in_flight", type("integer", [("minimum", 0)])),
            ])
        ),
        (
            "PushGateways",
            object([("apns", nullable(gatewayURL)), ("fcm", nullable(gatewayURL))], required: ["apns", "fcm"])
        ),
        (
            "ClockMove",
            .object([
                (
                    "oneOf",
                    [
                        object(
                            [
                                (
                                    "advance_seconds",
                                    type(
                                        "number",
                                        [("minimum", 0), ("maximum", .number(MockServer.maximumClockAdvanceSeconds))]
                                    )
                                )
                            ],
                            required: ["advance_seconds"]
                        ),
                        object([("set", time)], required: ["set"]),
                    ]
                )
            ])
        ),
        ("RecordingStart", object([("project", nullable(projectKey))])),
        (
            "Recording",
            answer([
                ("recording", type("boolean")), ("project", nullable(type("string"))), ("started_at", nullable(time)),
                ("steps", count), ("devices", count), ("scenario", nullable(type("string"))),
            ])
        ),
        ("StateSnapshot", snapshot(answer: true)),
        ("StateSnapshotInput", snapshot(answer: false)),
    ])

    static let faultCount = nullable(integer(1, Fault.maximumCount))
    /// A loopback gateway, as `PUT /admin/push-gateways` takes it.
    static let gatewayURL = type(
        "string",
        [
            (
                "pattern",
                .string(
                    #"^https?://(127\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])|localhost|\[::1\])(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?/?$"#
                )
            )
        ]
    )
}
