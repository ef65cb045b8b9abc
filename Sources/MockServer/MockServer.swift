import Clock
import Dispatch
import HTTP
import JSON
import ReleaseControl
import Synchronization

/// The mock Lerix backend as a ``Responder``: every endpoint of the wire contract, with no
/// sockets of its own. A server (HTTP/1.1, h2c) hands it requests; tests call it directly.
///
/// ```swift
/// let clock = ManualScheduler(now: Instant(rfc3339: "2026-12-02T11:00:00.000Z")!)
/// let server = try MockServer(options: MockServerOptions(clock: .manual(clock)))
/// server.respond(to: HTTPRequest(method: "GET", target: "/v1/projects/demo/release-control?platform=ios")) { reply in
///     // .response(200, {"project":"demo","server_time":…})
/// }
/// ```
///
/// Locking: one `Mutex` guards all state and is held only for lookups and in-place updates,
/// never for I/O. Writers (admin calls, token registration, ingest, push results) are also
/// serialised by a second lock held across "plan, enqueue to the store, apply to memory", so the
/// durable store sees events in the order they take effect; answers wait for the commit (which
/// writes in flight together share), and a refused write is taken back. Checks never take the
/// writer lock.
public final class MockServer: Responder {
    let options: MockServerOptions
    let clock: any Scheduler
    let router = Router.standard
    let state: Mutex<ServerState>
    /// Check targets read so far (the check's hot path reads each target once).
    let checkQueries: CheckQueryMemo
    let writer = Mutex<Void>(())
    /// The admin event stream's subscribers (`GET /admin/events`).
    let feed = EventFeed()
    /// Pushes whose delivery results are not all in (`GET /admin/clock`'s `pushes_in_flight`).
    let pushesInFlight = PushesInFlight()
    /// The session being recorded (`/admin/recording`, `serve --record`), and whether one is.
    let recording = Mutex<SessionRecorder?>(nil)
    let isRecording = Atomic<Bool>(false)
    /// Where admin requests with large bodies are parsed and answered: not on the server loop
    /// that handed them over, whose checks would wait (a 1 MiB body of many keys held a
    /// concurrent check for 0.5 s). One serial queue: admin calls are rare and ordered anyway.
    let largeAdminBodies = DispatchQueue(label: "lerix-mock.admin-large-bodies")
    /// Admin bodies up to this size are parsed in place (microseconds); larger ones move off the loop.
    static let inPlaceAdminBodyBytes = 64 << 10

    /// Starts from the store's state when it has one, else from `options.seed` (written to the store).
    /// Throws ``ConfigError`` when the store cannot be read or holds something invalid.
    public init(options: MockServerOptions) throws(ConfigError) {
        self.options = options
        clock = options.clock.scheduler
        checkQueries = CheckQueryMemo(capacity: options.cacheCapacity)
        var initial = ServerState(journalCapacity: options.journalCapacity)
        let stored: StateSnapshot?
        do {
            stored = try options.store.load()
        } catch {
            throw ConfigError(file: "state store", message: "cannot load the stored state: \(error)")
        }
        if let stored {
            initial.load(stored)
        } else {
            initial.load(options.seed)
            do {
                try options.store.apply([.replaced(options.seed)])
            } catch {
                throw ConfigError(file: "state store", message: "cannot write the seed: \(error)")
            }
        }
        state = Mutex(initial)
    }

    /// True when ``MockServerOptions/commitsAtBatchEnd`` is set: the server's loops call
    /// ``batchEnded()``.
    public var wantsBatchEnds: Bool { options.commitsAtBatchEnd }

    /// A server loop handed over its last request for now: the store commits the writes those
    /// requests queued, here on the loop when it can do so without waiting for the disk.
    public func batchEnded() {
        options.store.commitEnqueuedInPlace()
    }

    /// `HEAD` gets the `GET` answer, body included: the transport frames it as for the body
    /// (`Content-Length`) and leaves the body out.
    public func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        if let read = checkQueries.check(request) {
            return check(request, read: read, reply: reply)
        }
        route(request, reply: reply)
    }

    /// A check's reply as ``respond(to:reply:)`` gives it, returned in place (nil for a fault's
    /// `delay`, whose answer goes to `late`): the in-process SDKs' checks, the hot path of a
    /// simulated fleet, need no reply box or closure. Other requests go through ``firstReply(to:late:)``.
    public func replyAtOnce(to request: HTTPRequest, late: @escaping @Sendable (HTTPReply) -> Void) -> HTTPReply? {
        if let read = checkQueries.check(request) {
            return answerCheck(request, query: read, now: clock.now, fault: nil, reply: late)
        }
        let box = FirstReply(late: late)
        route(request) { box.take($0) }
        return box.close()
    }

    /// Every request but a check in the memo's plain form: the router's.
    private func route(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        let segments = Router.segments(request)
        switch router.resolve(method: request.method, path: segments) {
        case .notFound:
            reply(.response(Problem(status: 404, detail: "no endpoint at \(request.path); GET / lists them").response))
        case .methodNotAllowed(let allow):
            var headers = HTTPHeaders()
            headers.set("Allow", allow.joined(separator: ", "))
            reply(
                .response(
                    Problem(
                        status: 405,
                        detail:
                            "\(request.method) is not allowed on \(request.path); allowed: \(allow.joined(separator: ", "))",
                        headers: headers
                    ).response
                )
            )
        case .matched(let route, let parameters):
            if route.isAdmin,
                let problem = crossSiteProblem(request) ?? authorize(request)
                    ?? Self.unknownParameter(request, route.endpoint)
            {
                reply(.response(problem.response))
                return
            }
            if let problem = Self.identifierProblem(parameters) {
                reply(.response(problem.response))
                return
            }
            if route.isAdmin && request.body.count > Self.inPlaceAdminBodyBytes {
                // Off the loop, its write commits at once: no batch end follows it there.
                largeAdminBodies.async { [self] in
                    handle(route.endpoint, Call(request: request, parameters: parameters), reply: reply)
                }
                return
            }
            handle(
                route.endpoint,
                Call(request: request, parameters: parameters, commitAtBatchEnd: options.commitsAtBatchEnd),
                reply: reply
            )
        }
    }

    /// One matched request with its path parameters.
    struct Call: Sendable {
        let request: HTTPRequest
        let parameters: [String: String]
        /// The `{project}` parameter, "" for routes without one.
        let project: String
        /// The commits of this request's writes: the answer goes out once they are durable.
        let commits: PendingCommits

        init(request: HTTPRequest, parameters: [String: String], commitAtBatchEnd: Bool = false) {
            self.request = request
            self.parameters = parameters
            project = parameters["project"] ?? ""
            commits = PendingCommits(commitAtBatchEnd: commitAtBatchEnd)
        }

        subscript(_ name: String) -> String { name == "project" ? project : parameters[name] ?? "" }
    }

    func handle(_ endpoint: Endpoint, _ call: Call, reply: @escaping @Sendable (HTTPReply) -> Void) {
        if endpoint == .check {
            // A target the memo does not keep (a percent-encoded project, say): read here, once.
            return check(
                call.request,
                read: CheckQueryMemo.Read(project: call.project, request: call.request),
                reply: reply
            )
        }
        if endpoint == .events { return events(call, reply: reply) }
        let response: HTTPResponse
        do {
            response = try syncHandle(endpoint, call)
        } catch {
            response = error.response
        }
        // A write answers once the store committed it; a refusal then answers 503 instead.
        call.commits.whenSettled { problem in reply(.response(problem?.response ?? response)) }
    }

    func syncHandle(_ endpoint: Endpoint, _ call: Call) throws(Problem) -> HTTPResponse {
        switch endpoint {
        case .check, .events:
            return Problem(status: 500, detail: "\(endpoint.rawValue) is answered asynchronously").response
        case .index: return document(indexResponse())
        case .health: return text(200, "ok\n")
        case .dashboard: return dashboardResponse(asset: "index.html")
        case .dashboardAsset: return dashboardResponse(asset: call["asset"])
        case .openAPI:
            let host = call.request.headers["Host"].flatMap { Self.isPlainHost($0) ? $0 : nil } ?? "127.0.0.1:8080"
            return document(
                jsonResponse(
                    200,
                    OpenAPI.document(
                        router: router,
                        server: "http://" + host,
                        adminToken: options.adminToken != nil
                    )
                )
            )
        case .ingest: return try ingest(call)
        case .registerToken: return try registerToken(call)
        case .unregisterToken: return try unregisterToken(call)
        case .listProjects: return listProjects()
        case .getProject: return try getProject(call)
        case .putProject: return try putProject(call)
        case .listRules: return try listRules(call)
        case .createRule: return try createRule(call)
        case .getRule: return try getRule(call)
        case .replaceRule: return try replaceRule(call)
        case .deleteRule: return try deleteRule(call)
        case .liftAll: return try liftAll(call)
        case .listChanges: return try listChanges(call)
        case .ingestCounts: return try ingestCounts(call)
        case .listTokens: return try listTokens(call)
        case .listPushes: return try listPushes(call)
        case .getPush: return try getPush(call)
        case .listPushResults: return try listPushResults(call)
        case .listFaults: return try listFaults(call)
        case .addFault: return try addFault(call)
        case .clearFaults: return try clearFaults(call)
        case .journal: return try journal(call)
        case .reset: return try reset(call)
        case .getClock: return clockResponse(200)
        case .setClock: return try setClock(call)
        case .getPushGateways: return try getPushGateways()
        case .putPushGateways: return try putPushGateways(call)
        case .exportState: return exportState()
        case .importState: return try importState(call)
        case .startRecording: return try postRecording(call)
        case .getRecording: return getRecording()
        case .stopRecording: return deleteRecording()
        }
    }

    /// Every path parameter is an identifier (project, rule, token, module): one with a
    /// control character is refused before any endpoint sees it.
    static func identifierProblem(_ parameters: [String: String]) -> Problem? {
        // The first refused in name order, found without sorting (an array a request) first.
        var first: (name: String, problem: String)?
        for (name, value) in parameters {
            guard let problem = name == "rule" ? Rule.idProblem(value) : Identifier.problem(value) else { continue }
            if let found = first, found.name < name { continue }
            first = (name, problem)
        }
        guard let (name, problem) = first else { return nil }
        return Problem.parameter(name, .invalid, detail: "the \(name) in the path \(problem)", message: problem)
    }

    /// The admin API refuses query parameters it does not read (`?limt=5` would otherwise
    /// answer as if no limit were given). The SDK endpoints ignore them: SDKs send new ones.
    static func unknownParameter(_ request: HTTPRequest, _ endpoint: Endpoint) -> Problem? {
        guard request.target.utf8.contains(UInt8(ascii: "?")) else { return nil }
        let known = endpoint.doc.query.map(\.name)
        guard let name = request.queryItems.map(\.name).first(where: { !known.contains($0) }) else { return nil }
        let message =
            "unknown parameter '\(name)'"
            + (known.isEmpty ? " (this endpoint takes no query parameters)" : KeySuggestion.hint(for: name, in: known))
        return Problem.parameter(name, .unknown, detail: message, message: message)
    }

    /// A `Host` value safe to echo into the document: host name or address and port only.
    static func isPlainHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255
            && host.utf8.allSatisfy { b in
                (b >= 48 && b <= 58) || (b >= 65 && b <= 93 && b != 92) || (b >= 97 && b <= 122) || b == 45 || b == 46
            }
    }

    /// Everything the mock holds now, in the shape `--config` reads (what `GET /admin/state` answers).
    public var snapshot: StateSnapshot { state.withLock { $0.snapshot } }

    /// Checks of `project` the journal took since it began (the last reset), including those its
    /// ring no longer holds: what `GET /admin/requests` would list with no bound, without listing.
    public func checksJournaled(project: String) -> Int { state.withLock { $0.journal.appended(project: project) } }

    /// The journal lines of `project` after the first `count` since the last reset, oldest first:
    /// what `GET /admin/requests` lists, typed, for a harness in this process (explore reads
    /// the new checks after every move; encoding and parsing them as JSON cost it 40% of a history).
    /// `total` is every line of `project` since the reset (the next call's `count`), kept or not.
    public func checksJournaled(project: String, after count: Int) -> (lines: [RequestJournal.Entry], total: Int) {
        state.withLock { ($0.journal.appended(project: project, after: count), $0.journal.appended(project: project)) }
    }

    /// What `GET /admin/clock` answers, typed, for a harness in this process: the runner reads
    /// it after every move and at every stop of a time move.
    public struct ClockReading: Sendable, Equatable {
        public var now: Instant
        /// The manual clock's earliest timer (a combined push), nil when none or not manual.
        public var nextDeadline: Instant?
        /// Pushes handed to the gateways whose tokens have not all got a result.
        public var pushesInFlight: Int
    }

    public var clockReading: ClockReading {
        var next: Instant? = nil
        if case .manual(let manual) = options.clock { next = manual.nextDeadline }
        return ClockReading(now: clock.now, nextDeadline: next, pushesInFlight: pushesInFlight.count)
    }

    /// nil when the request may use the admin API.
    func authorize(_ request: HTTPRequest) -> Problem? {
        guard let token = options.adminToken else { return nil }
        var headers = HTTPHeaders()
        headers.set("WWW-Authenticate", "Bearer realm=\"lerix-mock admin\"")
        guard let header = request.headers["Authorization"] else {
            return Problem(
                status: 401,
                detail: "the admin API needs Authorization: Bearer <token> (the server runs with --admin-token)",
                headers: headers
            )
        }
        let prefix = "Bearer "
        guard header.count > prefix.count, header.lowercased().hasPrefix("bearer "),
            Self.constantTimeEqual(Array(header.utf8.dropFirst(prefix.utf8.count)), Array(token.utf8))
        else {
            headers.set("WWW-Authenticate", "Bearer realm=\"lerix-mock admin\", error=\"invalid_token\"")
            return Problem(status: 401, detail: "wrong admin token", headers: headers)
        }
        return nil
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return diff == 0
    }
}
