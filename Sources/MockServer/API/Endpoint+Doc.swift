import JSON

/// What `/openapi.json` and `GET /` say about one endpoint.
struct EndpointDoc: Sendable {
    struct QueryParameter: Sendable {
        var name: String
        var required: Bool = false
        var description: String
        /// The values the server accepts, as JSON Schema.
        var schema: JSON = .object([("type", "string")])
    }

    var summary: String
    var query: [QueryParameter] = []
    /// A component schema name in `#/components/schemas` for the request body, if it takes one.
    var body: String? = nil
    /// False when the body may be left out.
    var bodyRequired = true
    /// Status → (description, schema name or nil for no body).
    var responses: [(Int, String, String?)]
}

extension Endpoint {
    var doc: EndpointDoc {
        let problem = "Problem"
        switch self {
        case .index:
            return EndpointDoc(
                summary: "A short index of the endpoints, for a terminal",
                responses: [(200, "plain-text index", nil)]
            )
        case .health:
            return EndpointDoc(summary: "Liveness", responses: [(200, "the server is up", nil)])
        case .openAPI:
            return EndpointDoc(summary: "This OpenAPI 3.1 document", responses: [(200, "the document", nil)])
        case .check:
            return EndpointDoc(
                summary: "What one device must do now: the release-control check SDKs call",
                query: [
                    .init(
                        name: "platform",
                        required: true,
                        description: "the device's platform",
                        schema: OpenAPI.platform
                    ),
                    .init(
                        name: "version",
                        description: "the app version (dotted numbers, semver pre-release); empty = absent"
                    ),
                    .init(name: "build", description: "the app build; does not affect the answer"),
                    .init(name: "sdk", description: "the SDK's name, e.g. swift"),
                    .init(name: "sdk_version", description: "the SDK's version"),
                ],
                responses: [
                    (200, "the answer; ETag, Cache-Control max-age=lifetime, Lerix-Server-Time", "CheckAnswer"),
                    (304, "If-None-Match matched: the saved answer is renewed", nil),
                    (404, "unknown project", problem), (422, "missing or unknown platform, bad version", problem),
                ]
            )
        case .ingest:
            return EndpointDoc(
                summary: "SDK module traffic: counts the items of a JSON array",
                body: "IngestBatch",
                responses: [
                    (202, "accepted", "IngestAccepted"), (400, "not a JSON array", problem),
                    (404, "unknown project", problem), (422, "unknown module", problem),
                ]
            )
        case .registerToken:
            return EndpointDoc(
                summary: "Registers a push token (web has no push)",
                body: "PushTokenRegistration",
                responses: [
                    (204, "registered", nil), (400, "malformed body", problem),
                    (404, "unknown project", problem), (422, "missing or unknown platform", problem),
                ]
            )
        case .unregisterToken:
            return EndpointDoc(
                summary: "Removes a push token (idempotent)",
                responses: [
                    (204, "removed", nil), (404, "unknown project", problem), (422, "not a push token", problem),
                ]
            )
        case .listProjects:
            return EndpointDoc(summary: "Every project", responses: [(200, "{\"projects\": […]}", "ProjectList")])
        case .getProject:
            return EndpointDoc(
                summary: "One project",
                responses: [(200, "the project", "Project"), (404, "unknown project", problem)]
            )
        case .putProject:
            return EndpointDoc(
                summary: "Creates a project, or updates its push settings (no body: a project without them)",
                body: "ProjectSettings",
                bodyRequired: false,
                responses: [
                    (201, "created", "Project"), (200, "updated", "Project"),
                    (400, "malformed body", problem), (422, "bad project key", problem),
                ]
            )
        case .listRules:
            return EndpointDoc(
                summary: "The project's rules",
                responses: [(200, "{\"rules\": […]}", "RuleList"), (404, "unknown project", problem)]
            )
        case .createRule:
            return EndpointDoc(
                summary: "Creates a rule; the server assigns its id (a release-control change)",
                body: "RuleBody",
                responses: [
                    (201, "created; Location names it", "Rule"), (400, "malformed JSON or wrong types", problem),
                    (404, "unknown project", problem), (422, "the rule breaks a constraint", problem),
                ]
            )
        case .getRule:
            return EndpointDoc(
                summary: "One rule",
                responses: [
                    (200, "the rule", "Rule"), (404, "unknown project or rule", problem),
                    (410, "the rule was deleted or lifted by an earlier change (ids are never reused)", problem),
                ]
            )
        case .replaceRule:
            return EndpointDoc(
                summary: "Replaces a rule (a release-control change)",
                body: "RuleBody",
                responses: [
                    (200, "replaced", "Rule"), (400, "malformed JSON or wrong types", problem),
                    (404, "unknown project or rule", problem),
                    (410, "the rule was deleted or lifted by an earlier change (ids are never reused)", problem),
                    (422, "the rule breaks a constraint", problem),
                ]
            )
        case .deleteRule:
            return EndpointDoc(
                summary: "Deletes a rule (a release-control change)",
                responses: [
                    (204, "deleted", nil), (404, "unknown project or rule", problem),
                    (410, "the rule was deleted or lifted by an earlier change (ids are never reused)", problem),
                ]
            )
        case .liftAll:
            return EndpointDoc(
                summary:
                    "Ends every blocking state in one change: required updates, overdue recommended updates, maintenance",
                responses: [
                    (200, "what was lifted, and the change", "LiftAllResult"), (404, "unknown project", problem),
                ]
            )
        case .listChanges:
            return EndpointDoc(
                summary: "The project's release-control changes, oldest first, one page at a time",
                query: ListPage.query(defaultLimit: 1000),
                responses: [
                    (200, "{\"changes\": […], \"next\": link or null}", "ChangeList"),
                    (404, "unknown project", problem), (422, "bad limit or after", problem),
                ]
            )
        case .ingestCounts:
            return EndpointDoc(
                summary: "Items received per SDK module",
                responses: [(200, "{\"ingest\": {\"errors\": 2}}", "IngestCounts"), (404, "unknown project", problem)]
            )
        case .listTokens:
            return EndpointDoc(
                summary: "The project's push tokens in registration order, one page at a time",
                query: ListPage.query(defaultLimit: 1000),
                responses: [
                    (200, "{\"push_tokens\": […], \"next\": link or null}", "PushTokenList"),
                    (404, "unknown project", problem), (422, "bad limit or after", problem),
                ]
            )
        case .listPushes:
            return EndpointDoc(
                summary:
                    "Every silent push sent for the project, oldest first, one page at a time: counts and a results_url per push",
                query: ListPage.query(defaultLimit: 100),
                responses: [
                    (200, "{\"pushes\": […], \"next\": link or null}", "PushList"), (404, "unknown project", problem),
                    (422, "bad limit or after", problem),
                ]
            )
        case .getPush:
            return EndpointDoc(
                summary:
                    "One push: when, for which changes, token counts, delivered/failed/pending and its results_url",
                responses: [
                    (200, "the push's summary", "PushSummary"), (404, "unknown project or push", problem),
                    (422, "not a push id", problem),
                ]
            )
        case .listPushResults:
            return EndpointDoc(
                summary: "One push's per-token results in the order it went to them, one page at a time",
                query: ListPage.query(defaultLimit: 1000) + [
                    .init(
                        name: "result",
                        description: "only tokens with this result",
                        schema: .object([("type", "string"), ("enum", .array(MockServer.resultNames.map(JSON.string)))])
                    )
                ],
                responses: [
                    (200, "{\"results\": […], \"next\": link or null}", "PushResultList"),
                    (404, "unknown project or push", problem),
                    (422, "not a push id, bad limit, after or result", problem),
                ]
            )
        case .listFaults:
            return EndpointDoc(
                summary: "The faults armed on the project's check endpoint",
                responses: [(200, "{\"faults\": […]}", "FaultList"), (404, "unknown project", problem)]
            )
        case .addFault:
            return EndpointDoc(
                summary: "Arms a fault on the project's check endpoint (queued after any armed ones)",
                body: "Fault",
                responses: [
                    (200, "armed; answers every armed fault", "FaultList"), (400, "malformed body", problem),
                    (404, "unknown project", problem), (422, "unknown kind or bad value", problem),
                ]
            )
        case .clearFaults:
            return EndpointDoc(
                summary: "Clears the project's faults",
                responses: [(204, "cleared", nil), (404, "unknown project", problem)]
            )
        case .journal:
            return EndpointDoc(
                summary: "Recent checks, newest first",
                query: [
                    .init(
                        name: "project",
                        description: "only this project's checks (empty: every project's)",
                        schema: .object([("type", "string"), ("pattern", "^([A-Za-z0-9._-]{1,64})?$")])
                    ),
                    .init(
                        name: "limit",
                        description: "at most this many (default 100)",
                        schema: .object([("type", "integer"), ("minimum", 1)])
                    ),
                ],
                responses: [
                    (200, "{\"requests\": […]}", "RequestList"), (404, "unknown project", problem),
                    (422, "bad limit or an unknown parameter", problem),
                ]
            )
        case .reset:
            return EndpointDoc(
                summary:
                    "Back to the seed: rules, tokens, changes, pushes, journal, ingest, faults (not a change); the clock keeps its time, or with {\"now\": T} a manual clock starts over at T (backwards too)",
                body: "ResetRequest",
                bodyRequired: false,
                responses: [
                    (200, "reset", "ResetResult"), (400, "malformed body", problem),
                    (409, "now given but the clock is the system clock, or others' timers are pending on it", problem),
                    (422, "bad time or an unknown field", problem),
                ]
            )
        case .getClock:
            return EndpointDoc(
                summary:
                    "The server's clock: now, its mode, its next timer and the pushes still in flight to the gateways",
                responses: [(200, "now, mode, next_deadline and pushes_in_flight", "ClockState")]
            )
        case .setClock:
            return EndpointDoc(
                summary: "Moves the manual clock; pushes due by the new time are sent before it answers",
                body: "ClockMove",
                responses: [
                    (200, "the new time", "ClockState"), (400, "malformed body", problem),
                    (409, "the clock is the system clock", problem), (422, "bad move", problem),
                ]
            )
        case .getPushGateways:
            return EndpointDoc(
                summary: "Where pushes go: the APNs and FCM gateway URLs (null: none)",
                responses: [(200, "the gateways", "PushGateways"), (409, "this server's gateways are fixed", problem)]
            )
        case .putPushGateways:
            return EndpointDoc(
                summary:
                    "Points pushes at other gateways (loopback only; the scenario runner's stand-in), from the next push on",
                body: "PushGateways",
                responses: [
                    (200, "the gateways now", "PushGateways"), (400, "malformed body", problem),
                    (409, "this server's gateways are fixed", problem), (422, "not a loopback http(s) URL", problem),
                ]
            )
        case .events:
            return EndpointDoc(
                summary:
                    "A live text/event-stream of checks, rules, changes, pushes, tokens, ingest, faults, projects, clock moves and resets (what the dashboard at /ui reads; curl -N shows it)",
                query: [
                    .init(
                        name: "project",
                        description: "only this project's events (server-wide ones such as clock always come)",
                        schema: .object([
                            ("type", "string"),
                            ("pattern", .string("^(" + StateSnapshot.projectKeyPattern.dropFirst().dropLast() + ")?$")),
                        ])
                    ),
                    .init(
                        name: "kinds",
                        description: "comma-separated event kinds to receive: "
                            + EventFeed.kinds.joined(separator: ", "),
                        schema: .object([("type", "string"), ("pattern", .string(Self.kindsPattern))])
                    ),
                ],
                responses: [
                    (
                        200,
                        "the stream: `event: <kind>` and `data: <one line of JSON>` per event, a `: keep-alive` comment every 15 s; a reader more than 256 KiB behind is disconnected",
                        nil
                    ),
                    (404, "unknown project", problem), (422, "unknown event kind", problem),
                ]
            )
        case .dashboard:
            return EndpointDoc(
                summary: "The live dashboard (HTML, works offline; asks for the admin token when the server has one)",
                responses: [(200, "the page", nil)]
            )
        case .dashboardAsset:
            return EndpointDoc(
                summary: "The dashboard's script and style sheet",
                responses: [(200, "the asset", nil), (404, "no such asset", problem)]
            )
        case .exportState:
            return EndpointDoc(
                summary: "A snapshot of everything, in the shape --config reads",
                responses: [(200, "the snapshot", "StateSnapshot")]
            )
        case .importState:
            return EndpointDoc(
                summary: "Replaces the whole state with a snapshot, validated as a whole",
                body: "StateSnapshotInput",
                responses: [
                    (200, "replaced", "StateSnapshot"), (400, "malformed snapshot", problem),
                    (422, "a field breaks a rule; nothing changed", problem),
                ]
            )
        case .startRecording:
            return EndpointDoc(
                summary:
                    "Starts recording a manual session as a scenario (admin changes, device checks and their answers, pushes)",
                body: "RecordingStart",
                bodyRequired: false,
                responses: [
                    (201, "recording", "Recording"), (400, "malformed body", problem),
                    (404, "unknown project", problem),
                    (409, "a recording already runs", problem), (422, "unknown field", problem),
                ]
            )
        case .getRecording:
            return EndpointDoc(
                summary: "The recording so far: its state and the scenario as YAML (Scenarios/README.md's format)",
                responses: [(200, "the recording", "Recording")]
            )
        case .stopRecording:
            return EndpointDoc(
                summary: "Stops recording and returns the scenario (serve --record FILE also writes it there)",
                responses: [(200, "stopped; scenario is null when nothing was recording", "Recording")]
            )
        }
    }

    /// `kinds`: known event kinds joined by commas (empty: every kind).
    static let kindsPattern: String = {
        let kind = "(" + EventFeed.kinds.joined(separator: "|") + ")"
        return "^(" + kind + "(," + kind + ")*)?$"
    }()
}
