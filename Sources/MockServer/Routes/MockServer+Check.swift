import Clock
import Dispatch
import HTTP
import JSON
import ReleaseControl

extension MockServer {
    /// `GET /v1/projects/{project}/release-control`: the hot path. A cached answer per device
    /// class is served with only the server time spliced in, under one short lock that also
    /// takes armed faults and writes the journal; evaluation happens on a miss, outside the lock.
    /// Takes the request and its read target, not a ``Call``: a check writes nothing, so it
    /// needs no ``PendingCommits`` (one allocation per check saved).
    func check(_ request: HTTPRequest, read: CheckQueryMemo.Read, reply: @escaping @Sendable (HTTPReply) -> Void) {
        if let answer = answerCheck(request, query: read, now: clock.now, fault: nil, reply: reply) {
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
        query: CheckQueryMemo.Read,
        now: Instant,
        reply: @escaping @Sendable (HTTPReply) -> Void
    ) -> HTTPReply? {
        let project = query.project
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

    /// What the lock finds for one check. All but a hit are boxed (`indirect`), so a hit's
    /// lookup is one reference and a flag to move, not a large payload copied through the
    /// enum's value witnesses.
    enum CheckLookup {
        case hit(ServedAnswer, notModified: Bool)
        indirect case miss(ProjectState, UInt64, CheckQuery.Key)
        case gone
        indirect case fault(Fault)
        indirect case invalid(Problem)
    }

    /// What a check takes out of the lock.
    struct CheckFound {
        var lookup: CheckLookup
        /// The server time the answer carries ("" for no answer).
        var serverTime = ""
    }

    /// The project's part of a check: an armed fault (when `takingFault`), then the device's
    /// validity, then the cache. A hit comes back with `notModified` false; the caller decides it.
    static func lookUp(
        in runtime: inout ProjectRuntime,
        read: CheckQueryMemo.Read,
        takingFault: Bool,
        now: Instant
    ) -> CheckLookup {
        if takingFault, !runtime.faults.isEmpty, let armed = runtime.faults.consume() { return .fault(armed) }
        if let problem = read.problem { return .invalid(problem) }
        if let answer = runtime.cache.answer(for: read), answer.isValid(at: now) {
            return .hit(answer, notModified: false)
        }
        guard let device = read.key else { return .invalid(Problem(status: 422, detail: "the query names no device")) }
        return .miss(runtime.state, runtime.stamp, device)
    }

    /// Answers one check: unknown project (404), then an armed fault (unless this answer is
    /// the delayed end of one, `fault != nil`), then query validation, then the cache.
    /// A fault answered later (delay) returns nothing here and calls `reply` itself.
    ///
    /// The journal line is built in the lock and moved into the journal; the event stream and
    /// a recording, when there are any, get the same line built again after the lock (a line
    /// is a function of the check and its answer), so a check copies and keeps none.
    func answerCheck(
        _ request: HTTPRequest,
        query read: CheckQueryMemo.Read,
        now: Instant,
        fault: String?,
        reply: @escaping @Sendable (HTTPReply) -> Void
    ) -> HTTPReply? {
        let project = read.project
        let ifNoneMatch = request.headers["If-None-Match"]
        let found: CheckFound = state.withLock { s in
            guard
                let lookup = s.updateProject(
                    project,
                    { Self.lookUp(in: &$0, read: read, takingFault: fault == nil, now: now) }
                )
            else { return CheckFound(lookup: .gone) }
            switch lookup {
            case .fault(let armed):
                if case .delay = armed.kind { return CheckFound(lookup: lookup) }
                s.journal.append(
                    read.entry(at: now, project: project, status: Self.faultStatus(armed), fault: armed.name)
                )
                return CheckFound(lookup: lookup)
            case .hit(let answer, _):
                let notModified = answer.isNotModified(for: ifNoneMatch)
                s.journal.append(
                    read.entry(at: now, project: project, answered: answer, notModified: notModified, fault: fault)
                )
                return CheckFound(lookup: .hit(answer, notModified: notModified), serverTime: s.serverTimeText(now))
            case .miss:
                return CheckFound(lookup: lookup, serverTime: s.serverTimeText(now))
            case .gone, .invalid:
                return CheckFound(lookup: lookup)
            }
        }
        let answer: ServedAnswer
        let notModified: Bool
        switch found.lookup {
        case .gone:
            return .response(Problem.unknownProject(project).response)
        case .invalid(let problem):
            return .response(problem.response)
        case .fault(let armed):
            if case .delay = armed.kind {
            } else if feed.isWatched || isRecording.load(ordering: .relaxed) {
                let journaled = read.entry(
                    at: now,
                    project: project,
                    status: Self.faultStatus(armed),
                    fault: armed.name
                )
                announce(check: journaled)
                if isRecording.load(ordering: .relaxed) { recordCheck(journaled, answer: nil, serverTime: "") }
            }
            return answerFault(armed, request: request, query: read, now: now, reply: reply)
        case .hit(let cached, let matched):
            answer = cached
            notModified = matched
        case .miss(let projectState, let stamp, let device):
            answer = ServedAnswer(projectState.evaluate(device.device, now: now))
            notModified = answer.isNotModified(for: ifNoneMatch)
            let capacity = options.cacheCapacity
            state.withLock { s in
                _ = s.updateProject(project) { runtime in
                    if runtime.stamp == stamp { runtime.cache.store(answer, for: read, capacity: capacity) }
                }
                s.journal.append(
                    read.entry(at: now, project: project, answered: answer, notModified: notModified, fault: fault)
                )
            }
        }
        if feed.isWatched || isRecording.load(ordering: .relaxed) {
            let journaled = read.entry(
                at: now,
                project: project,
                answered: answer,
                notModified: notModified,
                fault: fault
            )
            announce(check: journaled)
            if isRecording.load(ordering: .relaxed) {
                recordCheck(journaled, answer: answer, serverTime: found.serverTime)
            }
        }
        return .response(answer.response(project: project, serverTime: found.serverTime, notModified: notModified))
    }
}
