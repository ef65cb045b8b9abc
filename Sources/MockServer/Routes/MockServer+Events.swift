import Clock
import HTTP
import JSON
import ReleaseControl

extension MockServer {
    /// `GET /admin/events`: a `text/event-stream` of what happens, for the dashboard and curl.
    /// Opens with a `hello` (the clock and the projects); then one event per check, change,
    /// push, token, ingest count, fault list, project, clock move and reset.
    func events(_ call: Call, reply: @escaping @Sendable (HTTPReply) -> Void) {
        var filter = EventFeed.Filter()
        if let project = call.request.query("project"), !project.isEmpty {
            let known = state.withLock { $0.hasProject(project) }
            guard known else {
                reply(.response(Problem.unknownProject(project).response))
                return
            }
            filter.project = project
        }
        if let text = call.request.query("kinds"), !text.isEmpty {
            // "a,,b" is refused too: an empty kind is a typo, not "every kind".
            let kinds = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0) }
            if let unknown = kinds.first(where: { !EventFeed.kinds.contains($0) }) {
                let message =
                    "unknown event kind \"\(unknown)\"" + KeySuggestion.hint(for: unknown, in: EventFeed.kinds)
                reply(
                    .response(
                        Problem.parameter("kinds", .invalid, detail: "kinds: " + message, message: message).response
                    )
                )
                return
            }
            filter.kinds = Set(kinds)
        }
        let stream = ResponseStream(
            maxBufferedBytes: 256 << 10,
            heartbeat: EventFeed.heartbeat,
            heartbeatInterval: .seconds(15),
            lifetime: options.eventStreamLifetime
        )
        // The hello is written before subscribing, so it is always the first event.
        var opening = Array("retry: 2000\n".utf8)
        let projects = state.withLock { s in s.order }
        let hello = EventFeed.Event(
            kind: "hello",
            project: nil,
            data: .object([
                ("now", .string(clock.now.rfc3339)), ("mode", .string(options.clock.isManual ? "manual" : "system")),
                ("projects", .array(projects.map(JSON.string))),
            ])
        )
        if filter.admits(hello) { opening.append(contentsOf: EventFeed.encode(hello, id: nil)) }
        stream.write(opening)
        feed.subscribe(stream, filter: filter)
        var head = HTTPResponse(status: 200)
        head.headers.set("Content-Type", "text/event-stream; charset=utf-8")
        head.headers.set("Cache-Control", "no-store")
        head.headers.set("X-Accel-Buffering", "no")
        reply(.stream(head, stream))
    }

    /// A check as the journal holds it.
    func announce(check entry: RequestJournal.Entry) {
        guard feed.isWatched else { return }
        feed.publish(.init(kind: "check", project: entry.project, data: entry.json))
    }

    func announceClock() {
        guard feed.isWatched else { return }
        feed.publish(
            .init(
                kind: "clock",
                project: nil,
                data: .object([
                    ("now", .string(clock.now.rfc3339)),
                    ("mode", .string(options.clock.isManual ? "manual" : "system")),
                ])
            )
        )
    }

    /// The project's fault list after an admin call: `armed` is the fault it added, nil when it
    /// cleared them.
    func announce(faults: [Fault], project: String, armed: Fault?) {
        if isRecording.load(ordering: .relaxed) { recordFaults(armed: armed, project: project) }
        guard feed.isWatched else { return }
        feed.publish(.init(kind: "fault", project: project, data: .object([("faults", .array(faults.map(\.json)))])))
    }

    /// Every acknowledged write, as events: called by ``write(_:)`` once the write is applied.
    func announce(_ events: [StateEvent]) {
        if isRecording.load(ordering: .relaxed) { recordEvents(events) }
        guard feed.isWatched else { return }
        for event in events { feed.publish(Self.feedEvent(event)) }
    }

    static func feedEvent(_ event: StateEvent) -> EventFeed.Event {
        switch event {
        case .projectUpserted(let key, let apnsTopic, let fcmProject):
            return .init(
                kind: "project",
                project: key,
                data: .object([
                    ("apns_topic", apnsTopic.map(JSON.string) ?? .null),
                    ("fcm_project", fcmProject.map(JSON.string) ?? .null),
                ])
            )
        case .ruleUpserted(let project, let rule):
            return .init(kind: "rule", project: project, data: .object([("action", "upserted"), ("rule", rule.json)]))
        case .ruleDeleted(let project, let ruleId):
            return .init(
                kind: "rule",
                project: project,
                data: .object([("action", "deleted"), ("id", .string(ruleId))])
            )
        case .changeAppended(let project, let change):
            return .init(kind: "change", project: project, data: .object([("change", change.json)]))
        case .tokenUpserted(let project, let token):
            return .init(
                kind: "token",
                project: project,
                data: .object([("action", "registered"), ("token", token.json)])
            )
        case .tokenDeleted(let project, let token):
            return .init(
                kind: "token",
                project: project,
                data: .object([("action", "removed"), ("token", .object([("token", .string(token))]))])
            )
        case .pushRecorded(let project, let push), .pushUpdated(let project, let push):
            // The summary: a fan-out reports results in batches, and watching it must not cost a
            // serialisation of every token's result per batch.
            return .init(kind: "push", project: project, data: .object([("push", push.summaryJSON(project: project))]))
        case .ingestCounted(let project, let module, let total):
            return .init(
                kind: "ingest",
                project: project,
                data: .object([("module", .string(module)), ("total", .number(Double(total)))])
            )
        case .replaced(let snapshot):
            return .init(
                kind: "reset",
                project: nil,
                data: .object([("projects", .array(snapshot.projects.map { .string($0.key) }))])
            )
        }
    }
}
