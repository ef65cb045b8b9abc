import Clock
import Dispatch
import HTTP
import JSON
import ReleaseControl

extension MockServer {
    /// The device's query, as sent (for the journal) and as evaluated.
    struct CheckQuery: Sendable {
        var platform: String?
        var version: String?
        var build: String?
        var sdk: String?
        var sdkVersion: String?

        init(_ request: HTTPRequest) {
            for item in request.queryItems where !item.value.isEmpty {
                switch item.name {
                case "platform": if platform == nil { platform = item.value }
                case "version": if version == nil { version = item.value }
                case "build": if build == nil { build = item.value }
                case "sdk": if sdk == nil { sdk = item.value }
                case "sdk_version": if sdkVersion == nil { sdkVersion = item.value }
                default: break
                }
            }
        }

        func entry(at: Instant, project: String, status: Int, etag: String? = nil, lifetime: Int? = nil,
                   fault: String? = nil) -> RequestJournal.Entry {
            RequestJournal.Entry(at: at, project: project, platform: platform, version: version, build: build,
                                 sdk: sdk, sdkVersion: sdkVersion, status: status, etag: etag, lifetime: lifetime, fault: fault)
        }
    }

    /// `GET /v1/projects/{project}/release-control`: the hot path. A cached answer per device
    /// class is served with only the server time spliced in; evaluation happens on a miss,
    /// outside the lock.
    func check(_ call: Call, reply: @escaping @Sendable (HTTPReply) -> Void) {
        let project = call.project
        let query = CheckQuery(call.request)
        let now = clock.now

        enum Step {
            case noProject
            case fault(Fault)
            case proceed
        }
        let step: Step = state.withLock { s in
            guard s.projects[project] != nil else { return .noProject }
            if s.projects[project]?.faults.isEmpty == false, let fault = s.projects[project]?.faults.consume() {
                if case .delay = fault.kind {} else {
                    s.journal.append(query.entry(at: now, project: project, status: Self.faultStatus(fault), fault: fault.name))
                }
                return .fault(fault)
            }
            return .proceed
        }
        switch step {
        case .noProject:
            reply(.response(Problem.unknownProject(project).response))
        case .fault(let fault):
            answerFault(fault, call: call, query: query, now: now, reply: reply)
        case .proceed:
            reply(answerCheck(call, query: query, now: now, fault: nil))
        }
    }

    static func faultStatus(_ fault: Fault) -> Int {
        switch fault.kind {
        case .status(let status): return status
        case .reset: return 0
        case .delay, .malformed, .wrongTypes: return 200
        }
    }

    func answerFault(_ fault: Fault, call: Call, query: CheckQuery, now: Instant, reply: @escaping @Sendable (HTTPReply) -> Void) {
        let project = call.project
        switch fault.kind {
        case .status(let status):
            reply(.response(Problem(status: status, title: "Injected fault",
                                    detail: "status \(status) injected by POST /admin/projects/\(project)/faults").response))
        case .reset:
            reply(.close)
        case .malformed:
            var response = HTTPResponse(status: 200, body: Array(#"{"project":"#.utf8) + JSON.string(project).serialized()
                + Array(#","server_time":""#.utf8) + Array(now.rfc3339.utf8) + Array(#"","lifetime":60,"required_update":{"rule":"#.utf8))
            response.headers.set("Content-Type", "application/json")
            response.headers.set("Lerix-Server-Time", now.rfc3339)
            reply(.response(response))
        case .wrongTypes:
            let body: JSON = .object([
                ("project", .string(project)), ("server_time", 5), ("lifetime", "60"),
                ("required_update", []), ("optional_update", 7), ("maintenance", .object([])), ("sdk_switch", "x"),
            ])
            var response = HTTPResponse(status: 200, body: body.serialized())
            response.headers.set("Content-Type", "application/json")
            response.headers.set("Lerix-Server-Time", now.rfc3339)
            reply(.response(response))
        case .delay(let milliseconds):
            // Real time, not the injected clock: SDK adapters wait for answers in virtual time
            // and move the manual clock only between steps, so a delay on the manual clock
            // would never elapse while a request is in flight (and would stall the advance).
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [self] in
                reply(answerCheck(call, query: query, now: clock.now, fault: "delay"))
            }
        }
    }

    /// Validates the query and answers from the cache, evaluating on a miss.
    func answerCheck(_ call: Call, query: CheckQuery, now: Instant, fault: String?) -> HTTPReply {
        let project = call.project
        guard let platformName = query.platform else {
            return .response(Problem(status: 422, title: "Missing parameter",
                                     detail: "the query needs platform=ios|android|macos|web",
                                     errors: [.init(pointer: "/platform", parameter: "platform", message: "required")]).response)
        }
        guard let platform = Platform(rawValue: platformName) else {
            return .response(Problem(status: 422, title: "Invalid parameter",
                                     detail: "unknown platform \"\(platformName)\"; expected ios, android, macos or web",
                                     errors: [.init(pointer: "/platform", parameter: "platform",
                                                    message: "unknown platform \"\(platformName)\"")]).response)
        }
        let device = Device(platform: platform, version: query.version, build: query.build, sdk: query.sdk,
                            sdkVersion: query.sdkVersion).evaluationClass
        let ifNoneMatch = call.request.headers["If-None-Match"]

        enum Lookup {
            case hit(EvaluatedAnswer, notModified: Bool)
            case miss(ProjectState, UInt64)
            case gone
        }
        let lookup: Lookup = state.withLock { s in
            guard let runtime = s.projects[project] else { return .gone }
            if let answer = runtime.cache[device], answer.isValid(at: now) {
                let notModified = ifNoneMatch.map { EntityTag.matches(ifNoneMatch: $0, etag: answer.etag) } ?? false
                s.journal.append(query.entry(at: now, project: project, status: notModified ? 304 : 200,
                                             etag: answer.etag, lifetime: answer.lifetime, fault: fault))
                return .hit(answer, notModified: notModified)
            }
            return .miss(runtime.state, runtime.stamp)
        }
        let answer: EvaluatedAnswer
        let notModified: Bool
        switch lookup {
        case .gone:
            return .response(Problem.unknownProject(project).response)
        case .hit(let cached, let matched):
            answer = cached
            notModified = matched
        case .miss(let projectState, let stamp):
            answer = projectState.evaluate(device, now: now)
            notModified = ifNoneMatch.map { EntityTag.matches(ifNoneMatch: $0, etag: answer.etag) } ?? false
            let capacity = options.cacheCapacity
            state.withLock { s in
                if s.projects[project]?.stamp == stamp {
                    if let count = s.projects[project]?.cache.count, count >= capacity {
                        s.projects[project]?.cache.removeAll(keepingCapacity: true)
                    }
                    s.projects[project]?.cache[device] = answer
                }
                s.journal.append(query.entry(at: now, project: project, status: notModified ? 304 : 200,
                                             etag: answer.etag, lifetime: answer.lifetime, fault: fault))
            }
        }
        let serverTime = now.rfc3339
        let headers = HTTPHeaders([
            ("Content-Type", "application/json"),
            ("ETag", answer.etag),
            ("Cache-Control", "private, max-age=\(answer.lifetime)"),
            ("Lerix-Server-Time", serverTime),
        ])
        if notModified {
            return .response(HTTPResponse(status: 304, headers: headers))
        }
        return .response(HTTPResponse(status: 200, headers: headers, body: answer.body(project: project, serverTime: now)))
    }
}
