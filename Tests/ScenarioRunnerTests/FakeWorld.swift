import Clock
import JSON
import MockServer
import Synchronization

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// The synchronous sink's answer, out of its `@Sendable` completion.
final class DeliveryResults: Sendable {
    let results = Mutex<[TokenDelivery]>([])
}

/// An in-memory server with a tiny rule model: required updates only, a journal, a push
/// throttle (one per 60 s) and ingest counts. Enough to pin the runner's own behaviour.
final class FakeServer: ServerConnection {
    let baseURL = "http://fake"
    var now = Instant(rfc3339: "2026-12-02T09:00:00.000Z")!
    var rules: [(id: String, below: String)] = []
    var nextRule = 1
    var journal: [JSON] = []
    /// Each push as the listing shows it (counts and results_url), and its per-token results.
    var pushes: [JSON] = []
    var pushResults: [[JSON]] = []
    var tokens: [(String, String)] = []
    var ingest: [String: Int] = [:]
    var lastChange: Instant?
    var lastPush: Instant?
    var pushDueAt: Instant?
    var pendingChanges = 0
    var clockSets = 0
    /// Acts as a server of an older release, whose reset ignores `now`.
    var ignoresResetTime = false
    /// Pushes go to the runner's stand-in as APNs/FCM requests, as a real server's do.
    let gateway = PushGatewayStandIn.inMemory(scheduler: SystemScheduler())

    var clockAnswer: JSON {
        .object([
            ("now", .string(now.rfc3339)), ("mode", "manual"),
            ("next_deadline", pushDueAt.map { .string($0.rfc3339) } ?? .null), ("pushes_in_flight", 0),
        ])
    }

    func request(_ method: String, _ path: String, body: JSON?) throws(ServerFailure) -> ServerReply {
        let p = path.split(separator: "?").first.map(String.init) ?? path
        switch (method, p) {
        case ("POST", "/admin/reset"):
            rules = []
            journal = []
            pushes = []
            pushResults = []
            tokens = []
            ingest = [:]
            lastChange = nil
            lastPush = nil
            pushDueAt = nil
            // As lerix-mock: `{"now": T}` starts the clock over at T, backwards too.
            if !ignoresResetTime, let restart = body?["now"]?.stringValue.flatMap(Instant.init(rfc3339:)) {
                now = restart
            }
            return ServerReply(status: 200, json: .object([("reset", true), ("now", .string(now.rfc3339))]))
        case ("GET", "/admin/clock"):
            return ServerReply(status: 200, json: clockAnswer)
        case ("POST", "/admin/clock"):
            guard let t = body?["set"]?.stringValue.flatMap(Instant.init(rfc3339:)), t >= now else {
                return ServerReply(status: 422, json: nil)
            }
            clockSets += 1
            if let due = pushDueAt, due <= t {
                now = due
                sendPush()
            }
            now = t
            return ServerReply(status: 200, json: clockAnswer)
        case ("POST", "/admin/projects/demo/rules"):
            guard let below = body?["below"]?.stringValue else { return ServerReply(status: 422, json: nil) }
            // A refusal the runner cannot foresee (a remote server of another release, say).
            if below == "9.9.9" {
                return ServerReply(
                    status: 422,
                    json: .object([
                        ("type", "https://lerix.dev/problems/rule-violation"), ("title", "Unprocessable rule"),
                        ("status", 422),
                        ("detail", "the rule breaks 1 constraint"),
                        (
                            "errors",
                            [.object([("pointer", "/below"), ("message", "this server blocks no version above 9")])]
                        ),
                    ])
                )
            }
            let id = "r\(nextRule)"
            nextRule += 1
            rules.append((id, below))
            change()
            return ServerReply(status: 201, json: .object([("id", .string(id))]))
        case ("POST", "/admin/projects/demo/lift-all"):
            rules = []
            change()
            return ServerReply(status: 200, json: .object([]))
        case ("GET", "/admin/projects/demo"):
            return ServerReply(
                status: 200,
                json: .object([("key", "demo"), ("apns_topic", "dev.lerix.demo"), ("fcm_project", "lerix-demo")])
            )
        case ("GET", "/admin/projects/demo/pushes"):
            return ServerReply(status: 200, json: .object([("pushes", .array(pushes))]))
        case ("GET", "/admin/requests"):
            return ServerReply(status: 200, json: .object([("requests", .array(journal.reversed()))]))
        case ("GET", "/admin/projects/demo/ingest"):
            return ServerReply(
                status: 200,
                json: .object([
                    ("ingest", .object(ingest.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) }))
                ])
            )
        default:
            if method == "GET", p.hasPrefix("/admin/projects/demo/pushes/"), p.hasSuffix("/results"),
                let id = Int(p.split(separator: "/").dropLast().last ?? ""), pushResults.indices.contains(id - 1)
            {
                return ServerReply(
                    status: 200,
                    json: .object([("results", .array(pushResults[id - 1])), ("next", .null)])
                )
            }
            if method == "DELETE", p.hasPrefix("/admin/projects/demo/rules/") {
                let id = String(p.split(separator: "/").last ?? "")
                rules.removeAll { $0.id == id }
                change()
                return ServerReply(status: 204, json: nil)
            }
            if method == "PUT", p.hasPrefix("/v1/projects/demo/push-tokens/") {
                tokens.append((String(p.split(separator: "/").last ?? ""), body?["platform"]?.stringValue ?? "ios"))
                return ServerReply(status: 204, json: nil)
            }
            return ServerReply(status: 404, json: .object([("detail", .string("fake has no \(method) \(p)"))]))
        }
    }

    private func change() {
        lastChange = now
        if let last = lastPush, now.milliseconds(since: last) < 60_000 {
            pushDueAt = last.adding(seconds: 60)
        } else {
            sendPush()
        }
    }

    private func sendPush() {
        lastPush = now
        pushDueAt = nil
        let targets = tokens.map { PushTarget(token: $0.0, platform: $0.1 == "android" ? .android : .ios) }
        let outgoing = OutgoingPush(
            id: pushes.count + 1,
            project: "demo",
            apnsTopic: "dev.lerix.demo",
            fcmProject: "lerix-demo",
            tokens: targets
        )
        let delivered = DeliveryResults()
        ResponderPushSink(gateway: gateway.gateway, clock: SystemScheduler()).deliver(outgoing) { r in
            delivered.results.withLock { $0 = r }
        }
        let results: [JSON] = zip(tokens, delivered.results.withLock { $0 }).map {
            .object([("token", .string($0.0.0)), ("platform", .string($0.0.1)), ("result", .string($0.1.result.name))])
        }
        let id = pushes.count + 1
        pushes.append(
            .object([
                ("id", .number(Double(id))), ("sent_at", .string(now.rfc3339)),
                ("changes", [1]), ("tokens", .object([("ios", .number(Double(tokens.count)))])),
                ("results_url", .string("/admin/projects/demo/pushes/\(id)/results")),
            ])
        )
        pushResults.append(results)
    }

    var lifetime: Int { lastChange.map { now.milliseconds(since: $0) < 1_800_000 } == true ? 60 : 300 }

    /// A check: the required rule a device at `version` gets, and 304 when `etag` still matches.
    func check(
        platform: String,
        version: String?,
        sdk: String,
        etag: String?
    ) -> (status: Int, rule: String?, etag: String) {
        let rule = version.flatMap { v in rules.filter { v < $0.below }.map(\.id).first }
        let tag = "W/\"\(rule ?? "none")\""
        let status = tag == etag ? 304 : 200
        journal.append(
            .object([
                ("at", .string(now.rfc3339)),
                (
                    "device",
                    .object([
                        ("platform", .string(platform)), ("version", version.map(JSON.string) ?? .null),
                        ("build", .null), ("sdk", .string(sdk)), ("sdk_version", "1.5.0"),
                    ])
                ),
                ("status", .number(Double(status))), ("etag", .string(tag)), ("lifetime", .number(Double(lifetime))),
            ])
        )
        return (status, rule, tag)
    }
}

/// An in-memory adapter over ``FakeServer``: devices poll every 60 s in the foreground while
/// the lifetime is 60, and check on launch, foreground, push and refresh.
final class FakeAdapter: AdapterConnection {
    struct Device {
        var platform: String
        var version: String?
        var sdk: String
        var online = true
        var foreground = false
        var running = false
        var rule: String?
        var etag: String?
        var checks = 0
        var notModified = 0
        var nextPoll: Instant?
        var lastCheck: Instant?
    }

    let server: FakeServer
    var devices: [String: Device] = [:]
    var now = Instant(millisecondsSinceEpoch: 0)
    var commands: [String] = []

    init(server: FakeServer) { self.server = server }

    func close() {}

    func send(_ command: JSON) throws(AdapterFailure) -> JSON {
        let cmd = command["cmd"]?.stringValue ?? ""
        commands.append(cmd)
        let name = command["device"]?.stringValue ?? ""
        func ok(_ fields: [(String, JSON)] = []) -> JSON { .object([("ok", true)] + fields) }
        if cmd != "hello", cmd != "create", cmd != "advance", cmd != "next_deadline", devices[name] == nil {
            return .object([("ok", false), ("error", .string("no device \(name)"))])
        }
        switch cmd {
        case "hello":
            return ok([
                ("name", "fake"), ("version", "0"),
                ("capabilities", ["push", "track", "refresh", "platform:ios", "platform:android"]),
            ])
        case "create":
            now = Instant(rfc3339: command["now"]?.stringValue ?? "") ?? now
            let config = command["config"] ?? .null
            devices[name] = Device(
                platform: config["platform"]?.stringValue ?? "ios",
                version: config["app_version"]?.stringValue,
                sdk: config["sdk"]?.stringValue ?? "swift"
            )
            if let token = config["push_token"]?.stringValue {
                _ = try? server.request(
                    "PUT",
                    "/v1/projects/demo/push-tokens/\(token)",
                    body: .object([("platform", .string(config["platform"]?.stringValue ?? "ios"))])
                )
            }
        case "launch":
            devices[name]?.running = true
            devices[name]?.foreground = true
            check(name)
        case "foreground":
            devices[name]?.foreground = true
            if let last = devices[name]?.lastCheck, now.milliseconds(since: last) >= Int64(server.lifetime) * 1000 {
                check(name)
            }
            schedule(name)
        case "background":
            devices[name]?.foreground = false
            devices[name]?.nextPoll = nil
        case "push", "refresh":
            check(name)
        case "network":
            devices[name]?.online = command["online"]?.boolValue ?? true
        case "terminate":
            devices[name]?.running = false
            devices[name]?.foreground = false
            devices[name]?.nextPoll = nil
        case "track":
            if devices[name]?.online == true {
                server.ingest[command["module"]?.stringValue ?? "", default: 0] += command["count"]?.intValue ?? 0
            }
        case "next_deadline":
            let next = devices.values.compactMap(\.nextPoll).min()
            return ok([("next_deadline", next.map { .string($0.rfc3339) } ?? .null)])
        case "advance":
            guard let to = Instant(rfc3339: command["to"]?.stringValue ?? "") else {
                return .object([("ok", false), ("error", "bad to")])
            }
            while let (n, at) = devices.compactMap({ k, d in d.nextPoll.map { (k, $0) } }).filter({ $0.1 <= to }).min(
                by: { ($0.1, $0.0) < ($1.1, $1.0) })
            {
                now = at
                check(n)
            }
            now = to
        case "state":
            guard let d = devices[name] else { return ok() }
            return ok([
                ("screen", .string(d.rule == nil ? "none" : "required_update")),
                ("required_update", d.rule.map { .object([("rule", .string($0))]) } ?? .null),
                ("checks", .number(Double(d.checks))), ("not_modified", .number(Double(d.notModified))),
                ("polling", .bool(d.nextPoll != nil)),
            ])
        default:
            break
        }
        return ok()
    }

    private func check(_ name: String) {
        guard var d = devices[name] else { return }
        d.lastCheck = now
        if d.online {
            let answer = server.check(platform: d.platform, version: d.version, sdk: d.sdk, etag: d.etag)
            d.checks += 1
            if answer.status == 304 { d.notModified += 1 }
            d.rule = answer.rule
            d.etag = answer.etag
        }
        devices[name] = d
        schedule(name)
    }

    private func schedule(_ name: String) {
        guard let d = devices[name] else { return }
        devices[name]?.nextPoll = d.foreground && server.lifetime == 60 ? (d.lastCheck ?? now).adding(seconds: 60) : nil
    }
}

/// A world per scenario over a fresh fake server and adapter.
final class FakeEnvironment: ScenarioEnvironment {
    var lastServer: FakeServer?
    var lastAdapter: FakeAdapter?
    /// Each world's server (a test may make it act as an older release).
    var makeServer: () -> FakeServer = { FakeServer() }

    func hello() throws -> JSON {
        try FakeAdapter(server: FakeServer()).send(.object([("cmd", "hello")]))
    }

    func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
        let server = makeServer()
        let adapter = FakeAdapter(server: server)
        lastServer = server
        lastAdapter = adapter
        return ScenarioWorld(
            server: server,
            adapter: adapter,
            gateway: server.gateway,
            storageRoot: "/nonexistent",
            close: {}
        )
    }
}
