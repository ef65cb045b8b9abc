import Clock
import HTTP
import JSON
import ReleaseControl

extension MockServer {
    /// The throttle's timer: a combined push may be due.
    func pushTimerFired(project key: String) {
        let pushes: PushBatch
        let commits = PendingCommits()
        do {
            pushes = try write(for: commits) { () throws(Problem) in
                let now = clock.now
                guard let runtime = state.withLock({ $0.projects[key] }) else {
                    return ([], { _ in }, PushBatch.none)
                }
                var plan = PushPlan(runtime: runtime)
                plan.handle(plan.throttle.timerFired(now: now), now: now)
                let events: [StateEvent] = plan.records.map { .pushRecorded(project: key, push: $0) }
                return (
                    events,
                    { s in
                        s.projects[key]?.timer = nil
                        plan.apply(to: &s, key: key, server: self)
                    }, plan.outgoing(project: runtime.state, generation: state.withLock { $0.generation })
                )
            }
        } catch {
            options.log("push for project \(key) not sent: \(error.detail)")
            return
        }
        deliver(pushes, after: commits)
    }

    /// Hands pushes to the sink once `commits` (the writes that recorded them) are durable;
    /// pushes of a refused write never go out.
    func deliver(_ batch: PushBatch, after commits: PendingCommits) {
        guard !batch.pushes.isEmpty else { return }
        commits.whenSettled { [self] problem in
            if problem == nil { deliver(batch) }
        }
    }

    /// Hands pushes to the sink; never called with a lock held.
    func deliver(_ batch: PushBatch) {
        let generation = batch.generation
        for push in batch.pushes {
            let key = push.project
            let id = push.id
            let perPlatform = PlatformTally(push.tokens)
            let counts = Platform.allCases.sorted { $0.rawValue < $1.rawValue }
                .filter { perPlatform[$0] > 0 }
                .map { "\(perPlatform[$0]) \($0.rawValue)" }.joined(separator: ", ")
            options.log(
                "push \(id) for project \(key) at \(clock.now.rfc3339): "
                    + (push.tokens.isEmpty ? "no tokens" : counts)
            )
            pushesInFlight.begin(push: id, tokens: push.tokens.count)
            options.pushSink.deliver(push) { [weak self] results in
                self?.recordDeliveries(project: key, pushId: id, generation: generation, results)
                self?.pushesInFlight.settle(push: id, results: results)
            }
        }
    }

    /// Applies a sink's results to the push record; tokens the provider unregistered are removed.
    /// A batch costs about a byte per token of the push (the record's results are copied once),
    /// with the state lock held only to swap the record in.
    func recordDeliveries(project key: String, pushId: Int, generation: UInt64, _ results: [TokenDelivery]) {
        do {
            try write(for: PendingCommits()) { () throws(Problem) in
                let found = state.withLock { s in
                    s.generation == generation ? s.projects[key]?.pushes.last(where: { $0.id == pushId }) : nil
                }
                guard var updated = found else {
                    return ([], { _ in }, ())
                }
                let unregistered = updated.apply(results)
                var events: [StateEvent] = [.pushUpdated(project: key, push: updated)]
                events.append(contentsOf: unregistered.map { .tokenDeleted(project: key, token: $0) })
                return (
                    events,
                    { s in
                        _ = s.updateProject(key) { project in
                            if let index = project.pushes.lastIndex(where: { $0.id == pushId }) {
                                project.pushes[index] = updated
                            }
                            for token in unregistered { project.removeToken(token) }
                        }
                    }, ()
                )
            }
        } catch {
            options.log("delivery results of push \(pushId) (project \(key)) not stored: \(error.detail)")
        }
    }

    /// Push summaries, oldest first: counts and a link to the per-token results, so watching a
    /// fan-out does not serialise every token's result on each poll.
    func listPushes(_ call: Call) throws(Problem) -> HTTPResponse {
        let page = try ListPage(call.request, defaultLimit: 100)
        let pushes = try withProject(call.project) { $0.pushes }
        let (items, next) = page.take(pushes, cursor: \.id)
        return jsonResponse(
            200,
            .object([
                ("pushes", .array(items.map { $0.summaryJSON(project: call.project) })),
                ("next", page.link("/admin/projects/\(call.project)/pushes", next: next)),
            ])
        )
    }

    func getPush(_ call: Call) throws(Problem) -> HTTPResponse {
        jsonResponse(200, try pushRecord(call).summaryJSON(project: call.project))
    }

    /// One push's per-token results in the order it went to them, a page at a time; the cursor
    /// is the count of tokens before the page, so `?result=failed` pages through failures alone.
    func listPushResults(_ call: Call) throws(Problem) -> HTTPResponse {
        let page = try ListPage(call.request, defaultLimit: 1000)
        let filter = try Self.resultFilter(call.request)
        let record = try pushRecord(call)
        var items: [JSON] = []
        var next: Int?
        var position = min(page.after, record.targets.count)
        while position < record.targets.count {
            defer { position += 1 }
            if let filter, record.result(at: position).name != filter { continue }
            if items.count == page.limit {
                next = position
                break
            }
            items.append(record.resultJSON(at: position))
        }
        let path = PushRecord.resultsPath(project: call.project, id: record.id)
        var link = page.link(path, next: next)
        if let filter, case .string(let text) = link { link = .string(text + "&result=" + filter) }
        return jsonResponse(200, .object([("results", .array(items)), ("next", link)]))
    }

    /// The names `?result=` takes.
    static let resultNames = ["pending", "delivered", "failed", "unregistered", "no_gateway"]

    static func resultFilter(_ request: HTTPRequest) throws(Problem) -> String? {
        guard let text = request.query("result") else { return nil }
        guard resultNames.contains(text) else {
            let rule = "one of " + resultNames.joined(separator: ", ")
            throw Problem.parameter(
                "result",
                .invalid,
                detail: "result must be \(rule), got \"\(text)\"",
                message: "expected \(rule)"
            )
        }
        return text
    }

    /// The record the path's `{push}` names: 422 for a malformed id, 404 for an unknown one.
    func pushRecord(_ call: Call) throws(Problem) -> PushRecord {
        let text = call["push"]
        guard let id = Int(text), id >= 1, id <= ListPage.maximumCursor, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
        else {
            throw Problem.parameter(
                "push",
                .invalid,
                detail: "the push id must be a whole number from 1, as GET …/pushes lists it, got \"\(text)\"",
                message: "expected a push id"
            )
        }
        let found = try withProject(call.project) { $0.pushes.last(where: { $0.id == id }) }
        guard let found else {
            throw Problem(
                status: 404,
                title: "Unknown push",
                detail:
                    "project \"\(call.project)\" has no push \(id); GET /admin/projects/\(call.project)/pushes lists them"
            )
        }
        return found
    }

    /// Tokens in registration order; the cursor is the registration's sequence number.
    func listTokens(_ call: Call) throws(Problem) -> HTTPResponse {
        let page = try ListPage(call.request, defaultLimit: 1000)
        let (items, next) = try withProject(call.project) { project in
            page.take(
                project.tokens.values.filter { $0.sequence + 1 > page.after }.sorted { $0.sequence < $1.sequence },
                cursor: { $0.sequence + 1 }
            )
        }
        return jsonResponse(
            200,
            .object([
                ("push_tokens", .array(items.map(\.token.json))),
                ("next", page.link("/admin/projects/\(call.project)/push-tokens", next: next)),
            ])
        )
    }

    /// 422 for a token no device can hold, on registration and removal alike.
    func validToken(_ call: Call) throws(Problem) -> String {
        let token = call["token"]
        if let problem = PushTokens.problem(token: token) {
            throw Problem.parameter("token", .invalid, detail: "the push token \(problem)", message: problem)
        }
        return token
    }

    func registerToken(_ call: Call) throws(Problem) -> HTTPResponse {
        let key = call.project
        let tokenText = try validToken(call)
        let body = try parseBody(call)
        guard let object = body.objectValue else {
            throw Problem.field(
                "",
                "expected {\"platform\": \(Platform.pushPlatforms.map { "\"\($0.rawValue)\"" }.joined(separator: "|"))}, found \(body.typeName)",
                .wrongType
            )
        }
        let platform: Platform
        switch object["platform"] {
        case nil, .null?: throw Problem.field("/platform", "required: \(Platform.pushListText)", .missingField)
        case .string(let name)?:
            switch PushTokens.platform(name) {
            case .success(let p): platform = p
            case .failure(let message): throw Problem.field("/platform", message, .invalidValue)
            }
        case let other?: throw Problem.field("/platform", "expected a string, found \(other.typeName)", .wrongType)
        }
        try write(for: call.commits) { () throws(Problem) in
            let exists = state.withLock { $0.hasProject(key) }
            guard exists else { throw Problem.unknownProject(key) }
            let token = StateSnapshot.Token(token: tokenText, platform: platform, registeredAt: clock.now)
            let apply: (inout ServerState) -> Void = { s in _ = s.updateProject(key) { $0.upsert(token) } }
            return ([.tokenUpserted(project: key, token: token)], apply, ())
        }
        return noContent()
    }

    func unregisterToken(_ call: Call) throws(Problem) -> HTTPResponse {
        let key = call.project
        let token = try validToken(call)
        try write(for: call.commits) { () throws(Problem) in
            let present: Bool? = state.withLock { s in s.updateProject(key) { $0.tokens[token] != nil } }
            guard let present else { throw Problem.unknownProject(key) }
            guard present else { return ([], { _ in }, ()) }
            let apply: (inout ServerState) -> Void = { s in _ = s.updateProject(key) { $0.removeToken(token) } }
            return ([.tokenDeleted(project: key, token: token)], apply, ())
        }
        return noContent()
    }
}

/// Tokens counted by platform, by the platform's case: a fan-out has 100k tokens, and hashing
/// each one's platform into a dictionary was ~450 instructions a token (PushRecord's counts).
struct PlatformTally {
    private var counts = [Int](repeating: 0, count: Platform.allCases.count)

    init(_ targets: [PushTarget]) {
        for target in targets { counts[Self.slot(target.platform)] += 1 }
    }

    subscript(platform: Platform) -> Int { counts[Self.slot(platform)] }

    /// A slot of its own per case, below `allCases.count`.
    private static func slot(_ platform: Platform) -> Int {
        switch platform {
        case .ios: return 0
        case .android: return 1
        case .macos: return 2
        case .web: return 3
        }
    }
}
