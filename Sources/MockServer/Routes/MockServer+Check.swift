import Clock
import Dispatch
import HTTP
import JSON
import ReleaseControl

extension MockServer {
    /// `GET /v1/projects/{project}/release-control`: the hot path. A cached answer per device
    /// class is served with only the server time spliced in, under one short lock that also
    /// takes armed faults and writes the journal; evaluation happens on a miss, outside the lock.
    /// Takes the request and project, not a ``Call``: a check writes nothing, so it needs no
    /// ``PendingCommits`` (one allocation per check saved).
    func check(_ request: HTTPRequest, project: String, reply: @escaping @Sendable (HTTPReply) -> Void) {
        let query = checkQueries.read(request)
        if let answer = answerCheck(request, project: project, query: query, now: clock.now, fault: nil, reply: reply) {
            reply(answer)
        }
    }

    static func faultStatus(_ fault: Fault) -> Int {
        switch fault.kind {
        case .status(let status, _): return status
        case .reset: return 0
        case .delay, .malformed, .wrongTypes: return 200
        }
    }

    /// The reply a fault gives; for a delay, schedules the real answer and returns nil.
    func answerFault(
        _ fault: Fault,
        request: HTTPRequest,
        project: String,
        query: CheckQueryMemo.Read,
        now: Instant,
        reply: @escaping @Sendable (HTTPReply) -> Void
    ) -> HTTPReply? {
        switch fault.kind {
        case .status(let status, let retryAfter):
            var headers = HTTPHeaders()
            if let retryAfter { headers.set("Retry-After", String(retryAfter)) }
            return .response(
                Problem(
                    status: status,
                    title: "Injected fault",
                    detail: "status \(status) injected by POST /admin/projects/\(project)/faults",
                    headers: headers
                ).response
            )
        case .reset:
            return .close
        case .malformed:
            var response = HTTPResponse(
                status: 200,
                body: Array(#"{"project":"#.utf8) + JSON.string(project).serialized()
                    + Array(#","server_time":""#.utf8) + Array(now.rfc3339.utf8)
                    + Array(#"","lifetime":60,"required_update":{"rule":"#.utf8)
            )
            response.headers.set("Content-Type", "application/json")
            response.headers.set("Lerix-Server-Time", now.rfc3339)
            return .response(response)
        case .wrongTypes:
            let body: JSON = .object([
                ("project", .string(project)), ("server_time", 5), ("lifetime", "60"),
                ("required_update", []), ("optional_update", 7), ("maintenance", .object([])), ("sdk_switch", "x"),
            ])
            var response = HTTPResponse(status: 200, body: body.serialized())
            response.headers.set("Content-Type", "application/json")
            response.headers.set("Lerix-Server-Time", now.rfc3339)
            return .response(response)
        case .delay(let milliseconds):
            // Real time, not the injected clock: SDK adapters wait for answers in virtual time
            // and move the manual clock only between steps, so a delay on the manual clock
            // would never elapse while a request is in flight (and would stall the advance).
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [self] in
                if let answer = answerCheck(
                    request,
                    project: project,
                    query: query,
                    now: clock.now,
                    fault: "delay",
                    reply: reply
                ) {
                    reply(answer)
                }
            }
            return nil
        }
    }

    /// The device a query describes, or the 422 it earns.
    static func deviceKey(_ query: CheckQuery) -> Result<CheckQuery.Key, Problem> {
        guard let platformName = query.platform else {
            return .failure(
                Problem.parameter(
                    "platform",
                    .missing,
                    detail: "the query needs platform=\(Platform.allCases.map(\.rawValue).joined(separator: "|"))",
                    message: "required",
                    pointer: true
                )
            )
        }
        guard let platform = Platform(rawValue: platformName) else {
            let message =
                "unknown platform \"\(platformName)\""
                + KeySuggestion.hint(for: platformName, in: Platform.allCases.map(\.rawValue))
            return .failure(Problem.parameter("platform", .invalid, detail: message, message: message, pointer: true))
        }
        return .success(
            CheckQuery.Key(platform: platform, version: query.version, sdk: query.sdk, sdkVersion: query.sdkVersion)
        )
    }

    /// What the lock finds for one check.
    enum CheckLookup {
        case hit(ServedAnswer, notModified: Bool)
        case miss(ProjectState, UInt64, CheckQuery.Key)
        case gone
        case fault(Fault)
        case invalid(Problem)
    }

    /// The project's part of a check: an armed fault (when `takingFault`), then the device's
    /// validity, then the cache. A hit comes back with `notModified` false; the caller decides it.
    static func lookUp(
        in runtime: inout ProjectRuntime,
        device parsed: Result<CheckQuery.Key, Problem>,
        takingFault: Bool,
        now: Instant
    ) -> CheckLookup {
        if takingFault, !runtime.faults.isEmpty, let armed = runtime.faults.consume() { return .fault(armed) }
        let device: CheckQuery.Key
        switch parsed {
        case .failure(let problem): return .invalid(problem)
        case .success(let key): device = key
        }
        if let answer = runtime.cache[device], answer.isValid(at: now) { return .hit(answer, notModified: false) }
        return .miss(runtime.state, runtime.stamp, device)
    }

    /// Answers one check: unknown project (404), then an armed fault (unless this answer is
    /// the delayed end of one, `fault != nil`), then query validation, then the cache.
    /// A fault answered later (delay) returns nothing here and calls `reply` itself.
    func answerCheck(
        _ request: HTTPRequest,
        project: String,
        query read: CheckQueryMemo.Read,
        now: Instant,
        fault: String?,
        reply: @escaping @Sendable (HTTPReply) -> Void
    ) -> HTTPReply? {
        let parsed = read.device
        let ifNoneMatch = request.headers["If-None-Match"]

        // The journal line, announced on the event stream once the lock is released.
        var journaled: RequestJournal.Entry?
        var serverTime = ""
        let lookup: CheckLookup = state.withLock { s in
            guard let index = s.projects.index(forKey: project) else { return .gone }
            // In place: through `values[index]`'s getter every read would copy the whole project.
            let found = Self.lookUp(in: &s.projects.values[index], device: parsed, takingFault: fault == nil, now: now)
            switch found {
            case .fault(let armed):
                if case .delay = armed.kind {
                } else {
                    let entry = read.entry(
                        at: now,
                        project: project,
                        status: Self.faultStatus(armed),
                        fault: armed.name
                    )
                    s.journal.append(entry)
                    journaled = entry
                }
            case .hit(let answer, _):
                serverTime = s.serverTimeText(now)
                let notModified = answer.isNotModified(for: ifNoneMatch)
                let entry = read.entry(
                    at: now,
                    project: project,
                    answered: answer,
                    notModified: notModified,
                    fault: fault
                )
                s.journal.append(entry)
                journaled = entry
                return .hit(answer, notModified: notModified)
            case .miss:
                serverTime = s.serverTimeText(now)
            case .gone, .invalid:
                break
            }
            return found
        }
        if let journaled { announce(check: journaled) }
        let answer: ServedAnswer
        let notModified: Bool
        switch lookup {
        case .gone:
            return .response(Problem.unknownProject(project).response)
        case .invalid(let problem):
            return .response(problem.response)
        case .fault(let armed):
            if let journaled, isRecording.load(ordering: .relaxed) {
                recordCheck(journaled, answer: nil, serverTime: serverTime)
            }
            return answerFault(armed, request: request, project: project, query: read, now: now, reply: reply)
        case .hit(let cached, let matched):
            answer = cached
            notModified = matched
        case .miss(let projectState, let stamp, let device):
            answer = ServedAnswer(projectState.evaluate(device.device, now: now))
            notModified = answer.isNotModified(for: ifNoneMatch)
            let capacity = options.cacheCapacity
            state.withLock { s in
                if s.projects[project]?.stamp == stamp {
                    if let count = s.projects[project]?.cache.count, count >= capacity {
                        s.projects[project]?.cache.removeAll(keepingCapacity: true)
                    }
                    s.projects[project]?.cache[device] = answer
                }
                let entry = read.entry(
                    at: now,
                    project: project,
                    answered: answer,
                    notModified: notModified,
                    fault: fault
                )
                s.journal.append(entry)
                journaled = entry
            }
            if let journaled { announce(check: journaled) }
        }
        if let journaled, isRecording.load(ordering: .relaxed) {
            recordCheck(journaled, answer: answer, serverTime: serverTime)
        }
        let headers = answer.headers(serverTime: serverTime, notModified: notModified)
        if notModified {
            return .response(HTTPResponse(status: 304, headers: headers))
        }
        return .response(
            HTTPResponse(status: 200, headers: headers, body: answer.body(project: project, serverTimeText: serverTime))
        )
    }
}
