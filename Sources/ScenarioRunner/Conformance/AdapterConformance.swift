import AdapterProtocol
import AdminClient
import Clock
import Dispatch
import Foundation
import JSON
import MockServer
import ScenarioLanguage

/// `lerix-mock adapter-check CMD`: runs an adapter through every command and rule of
/// docs/ADAPTER.md before any scenario, against the runner's own loopback server, and says for
/// each check whether it held and, when not, what to fix. Answers are validated against the
/// protocol's JSON Schema (`adapter-protocol.schema.json`, shipped with the docs).
///
/// ```swift
/// let report = try AdapterConformance(command: "node SDKs/web/adapter.js").run()
/// print(report.text)       // "✔ hello answers name, version and capabilities" …
/// report.passed            // false when any check failed
/// ```
public final class AdapterConformance {
    /// The project the checks use: the server's own (its seed), as a device's config names it.
    static let demo = Admin.project(StateSnapshot.defaultProjectKey)
    public struct Check: Sendable {
        public var name: String
        /// Nil: it held. Else what was seen and what to fix.
        public var problem: String?
        /// Set when the check did not apply (a capability the adapter does not list).
        public var skipped: String?
    }

    public struct Report: Sendable {
        public var adapter: String
        public var checks: [Check]
        /// "runs 31 of 34 bundled scenarios; skips 3 (…)": what the adapter's capabilities will run.
        public var suite: String? = nil
        public var failed: Int { checks.filter { $0.problem != nil }.count }
        public var ran: Int { checks.filter { $0.skipped == nil }.count }
        /// Green only when every check that applied held, and some did.
        public var passed: Bool { failed == 0 && ran > 0 }

        public var text: String {
            var lines: [String] = []
            for check in checks {
                if let skipped = check.skipped {
                    lines.append("- \(check.name) (skipped: \(skipped))")
                } else if let problem = check.problem {
                    lines.append("✘ \(check.name)")
                    lines += problem.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
                } else {
                    lines.append("✔ \(check.name)")
                }
            }
            let skipped = checks.count - ran
            lines.append("")
            lines.append(
                "adapter-check \(adapter): \(ran - failed) passed, \(failed) failed"
                    + (skipped > 0 ? ", \(skipped) skipped" : "")
            )
            if let suite { lines.append(suite) }
            return lines.joined(separator: "\n")
        }
    }

    /// The protocol's schema, as docs/ADAPTER.md links it.
    public static func schema() throws -> JSONSchema {
        JSONSchema(document: try JSON.parse(PackageResources.adapter_protocol_schema_json))
    }

    let command: String
    let options: SubprocessAdapter.Options
    /// The bundled scenarios, for the closing line saying how many the adapter will run.
    let scenarios: [Scenario]?
    private var checks: [Check] = []
    private var schema = JSONSchema(document: .null)

    public init(command: String, options: SubprocessAdapter.Options = .init(), scenarios: [Scenario]? = nil) {
        self.command = command
        self.options = options
        self.scenarios = scenarios
    }

    /// A failed expectation inside a check: what was seen, and how to fix it.
    struct Miss: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    func check(_ name: String, _ body: () throws -> Void) {
        do {
            try body()
            checks.append(Check(name: name, problem: nil))
        } catch let miss as Miss {
            checks.append(Check(name: name, problem: miss.message))
        } catch {
            checks.append(Check(name: name, problem: "\(error)"))
        }
    }

    func skip(_ name: String, _ why: String) { checks.append(Check(name: name, skipped: why)) }

    private func valid(_ answer: JSON, _ definition: String, _ what: String) throws {
        let problems = schema.problems(in: answer, against: definition)
        guard problems.isEmpty else {
            throw Miss(
                "the answer to \(what) does not match `\(definition)` of the schema:\n"
                    + problems.prefix(8).map { "  " + $0 }.joined(separator: "\n")
                    + "\nanswer: \(JSONSchema.short(answer))"
            )
        }
    }

    private func refused(_ answer: JSON, _ what: String, id: JSON) throws {
        try valid(answer, "answer.error", what)
        guard answer["id"] == id else {
            throw Miss(
                "the refusal of \(what) echoes id \(answer["id"].map(JSONSchema.short) ?? "none"), not \(JSONSchema.short(id))"
            )
        }
    }

    public func run() throws -> Report {
        schema = try Self.schema()
        let server = try LoopbackServer.start()
        defer { server.shutdown() }
        let admin = try HTTPServerConnection(url: server.url)
        try admin.admin(Admin.reset())
        let storage = StorageFolder.make()
        defer { StorageFolder.remove(storage) }
        let adapter = try SubprocessAdapter(command: command, options: options)
        defer { adapter.close() }
        var nextId = 100
        /// One request as the protocol's object; the answer, checked for `ok` and its id.
        func send(_ pairs: [(String, JSON)], _ what: String) throws -> JSON {
            nextId += 1
            let id = JSON.number(Double(nextId))
            let answer = try adapter.exchange(
                rawLine: JSON.object([("id", id)] + pairs).serializedString,
                describing: what
            )
            guard answer["id"] == id else {
                throw Miss(
                    "\(what) was answered with id \(answer["id"].map(JSONSchema.short) ?? "none"), not \(nextId): echo each request's id"
                )
            }
            return answer
        }
        func ok(_ pairs: [(String, JSON)], _ what: String) throws -> JSON {
            let answer = try send(pairs, what)
            guard answer["ok"] == true else {
                throw Miss("\(what) was refused: \(answer["error"]?.stringValue ?? JSONSchema.short(answer))")
            }
            try valid(answer, "answer.ok", what)
            return answer
        }
        func state(_ device: String) throws -> JSON {
            let answer = try ok([("cmd", "state"), ("device", .string(device))], "`state` of \(device)")
            try valid(answer, "answer.state", "`state` of \(device)")
            return answer
        }
        func serverChecks() throws -> Int {
            try admin.admin(Admin.journal(project: Self.demo.key, limit: 100_000)).count
        }

        var hello: AdapterHello?
        /// The answer as it came, once bounded: `request_timeout_seconds` and the suite's summary read it.
        var helloAnswer = JSON.null
        let speaks: (String, JSON) = ("protocol", .number(Double(AdapterProtocolVersion.current)))
        check("hello answers name, version and capabilities from the vocabulary") {
            let answer = try ok([("cmd", "hello"), speaks], "`hello`")
            // Bounded before the schema looks at it: each of its sizes is the adapter's. It also
            // holds the adapter's `protocols`, when listed, to the runner's version.
            hello = try AdapterHello(answer)
            helloAnswer = answer
            try valid(answer, "answer.hello", "`hello`")
        }
        check("hello for an adapter protocol version the adapter does not speak is refused") {
            let newer = AdapterProtocolVersion.current + 1000
            let answer = try send(
                [("cmd", "hello"), ("protocol", .number(Double(newer)))],
                "`hello` for protocol \(newer)"
            )
            try refused(answer, "`hello` for adapter protocol \(newer)", id: .number(Double(nextId)))
            let error = answer["error"]?.stringValue ?? ""
            guard error.contains(String(newer)) else {
                throw Miss("the refusal of `hello` for protocol \(newer) does not name it: \(error)")
            }
        }
        let capabilities = hello?.capabilities ?? []
        let platforms = AdapterVocabulary.platforms.filter { capabilities.contains("platform:" + $0) }
        let platform = platforms.first ?? "ios"  // none listed: it emulates every platform
        let start = try admin.admin(Admin.clock).now
        var now = start

        check("a line that is not JSON is refused with ok: false and id null, and the adapter goes on") {
            let answer = try adapter.exchange(rawLine: "this is not JSON", describing: "a line that is not JSON")
            try refused(answer, "a line that is not JSON", id: .null)
            _ = try ok([("cmd", "hello"), speaks], "`hello` after a malformed line")
        }
        check("a request that is not an object is refused") {
            try refused(try adapter.exchange(rawLine: "[1, 2]", describing: "a JSON array"), "a JSON array", id: .null)
        }
        check("an unknown command is refused, its id echoed") {
            try refused(try send([("cmd", "fly")], "`fly`"), "the unknown command `fly`", id: .number(Double(nextId)))
        }
        check("an unknown device is refused") {
            try refused(
                try send([("cmd", "launch"), ("device", "ghost")], "`launch` of ghost"),
                "`launch` of an unknown device",
                id: .number(Double(nextId))
            )
        }
        let config: [(String, JSON)] = [
            ("base_url", .string(admin.baseURL)), ("project", .string(Self.demo.key)), ("platform", .string(platform)),
            ("app_version", "1.0.0"), ("build", .null), ("storage", .string(storage + "/a")),
        ]
        check("an unknown key in create's config is refused (a misspelt `plattform` never falls back to a default)") {
            var bad = config
            bad[2] = ("plattform", .string(platform))
            let answer = try send(
                [("cmd", "create"), ("device", "typo"), ("now", .string(now.rfc3339)), ("config", .object(bad))],
                "`create` with `plattform`"
            )
            try refused(answer, "`create` whose config says `plattform`", id: .number(Double(nextId)))
        }
        check("create makes a device whose state matches the schema: nothing shown, no check yet") {
            _ = try ok(
                [("cmd", "create"), ("device", "a"), ("now", .string(now.rfc3339)), ("config", .object(config))],
                "`create` of a"
            )
            let s = try state("a")
            guard s["screen"] == "none", s["checks"] == 0 else {
                throw Miss(
                    "a new device shows \(JSONSchema.short(s["screen"] ?? .null)) with \(JSONSchema.short(s["checks"] ?? .null)) checks; expected none and 0"
                )
            }
        }
        check("an unknown key in a command is refused") {
            try refused(
                try send([("cmd", "launch"), ("device", "a"), ("devise", "a")], "`launch` with `devise`"),
                "`launch` with an unknown key `devise`",
                id: .number(Double(nextId))
            )
        }
        check("a missing field is refused") {
            try refused(
                try send([("cmd", "network"), ("device", "a")], "`network` without online"),
                "`network` without `online`",
                id: .number(Double(nextId))
            )
        }
        check("a field of the wrong type is refused") {
            try refused(
                try send([("cmd", "network"), ("device", "a"), ("online", "yes")], "`network` with online \"yes\""),
                "`network` with `online: \"yes\"`",
                id: .number(Double(nextId))
            )
        }
        check("launch checks the server once, and returns only when the check is answered") {
            let before = try serverChecks()
            _ = try ok([("cmd", "launch"), ("device", "a")], "`launch` of a")
            let s = try state("a")
            let seen = try serverChecks() - before
            guard seen == 1 else {
                throw Miss(
                    "the server saw \(seen) checks during `launch`; expected 1, answered before `launch` returns"
                )
            }
            guard s["checks"] == 1, s["last_success"] != .null else {
                throw Miss(
                    "after launch, state says checks \(JSONSchema.short(s["checks"] ?? .null)), last_success \(JSONSchema.short(s["last_success"] ?? .null)); expected 1 and a time"
                )
            }
        }
        check("the saved answer is applied at launch, before any check, and survives terminate offline") {
            try admin.admin(Self.demo.createRule(.object([("type", "required_update"), ("below", "9.0.0")])))
            _ = try ok([("cmd", "terminate"), ("device", "a")], "`terminate`")
            _ = try ok([("cmd", "launch"), ("device", "a")], "`launch` of a")
            _ = try ok([("cmd", "network"), ("device", "a"), ("online", false)], "`network` offline")
            _ = try ok([("cmd", "terminate"), ("device", "a")], "`terminate`")
            _ = try ok([("cmd", "launch"), ("device", "a")], "`launch` offline")
            let s = try state("a")
            guard s["screen"] == "required_update" else {
                throw Miss(
                    "offline after terminate and launch, the screen is \(JSONSchema.short(s["screen"] ?? .null)); the saved required update must apply from storage"
                )
            }
            guard s["checks"] == 2 else {
                throw Miss(
                    "checks is \(JSONSchema.short(s["checks"] ?? .null)); an attempt while offline does not count (expected 2: the two launches online)"
                )
            }
            _ = try ok([("cmd", "network"), ("device", "a"), ("online", true)], "`network` online")
            try admin.admin(Self.demo.liftAll)
        }
        check("next_deadline is null or later than now; advance to it fires what is due") {
            let first = try ok([("cmd", "next_deadline")], "`next_deadline`")
            try valid(first, "answer.next_deadline", "`next_deadline`")
            let target: Instant
            if let text = first["next_deadline"]?.stringValue, let t = Instant(rfc3339: text) {
                guard t > now else { throw Miss("next_deadline \(text) is not after true time \(now.rfc3339)") }
                target = t
            } else {
                target = now.adding(seconds: 3600)
            }
            try admin.admin(Admin.setClock(to: target))
            _ = try ok([("cmd", "advance"), ("to", .string(target.rfc3339))], "`advance` to \(target.rfc3339)")
            now = target
            let after = try ok([("cmd", "next_deadline")], "`next_deadline` after advance")
            try valid(after, "answer.next_deadline", "`next_deadline`")
            if let text = after["next_deadline"]?.stringValue, let t = Instant(rfc3339: text), t <= target {
                throw Miss(
                    "after advance to \(target.rfc3339), next_deadline is \(text): every timer due at or before it must have fired"
                )
            }
        }
        check("a foreground app polls every 60 s while the answer's lifetime is 60 s") {
            // A change in the last 30 minutes makes the lifetime 60 s (CONTRACT.md).
            try admin.admin(Self.demo.createRule(.object([("type", "optional_update"), ("below", "0.1.0")])))
            _ = try ok([("cmd", "terminate"), ("device", "a")], "`terminate`")
            _ = try ok([("cmd", "launch"), ("device", "a")], "`launch` of a")
            let before = try state("a")["checks"]?.intValue ?? 0
            let target = now.adding(seconds: 61)
            try admin.admin(Admin.setClock(to: target))
            _ = try ok([("cmd", "advance"), ("to", .string(target.rfc3339))], "`advance` by 61 s")
            now = target
            let after = try state("a")["checks"]?.intValue ?? 0
            guard after == before + 1 else {
                throw Miss(
                    "61 s in the foreground with a 60 s lifetime made \(after - before) checks; expected 1 (its timer fires during `advance`)"
                )
            }
            _ = try ok([("cmd", "background"), ("device", "a")], "`background` of a")
        }
        if capabilities.contains(AdapterCapability.track.rawValue) {
            check("track sends a module's items before it answers") {
                _ = try ok([("cmd", "track"), ("device", "a"), ("module", "analytics"), ("count", 3)], "`track`")
                let s = try state("a")
                let ingest =
                    try admin.admin(Self.demo.ingest)["analytics"]?.intValue ?? 0
                guard s["sent"]?["analytics"] == 3, ingest == 3 else {
                    throw Miss(
                        "after track of 3 analytics items, state.sent.analytics is \(JSONSchema.short(s["sent"]?["analytics"] ?? .null)) and the server received \(ingest); expected 3 and 3"
                    )
                }
            }
        } else {
            skip("track sends a module's items before it answers", "hello lists no track")
        }
        if capabilities.contains(AdapterCapability.refresh.rawValue) {
            check("refresh checks at once") {
                let before = try state("a")["checks"]?.intValue ?? 0
                _ = try ok([("cmd", "refresh"), ("device", "a")], "`refresh`")
                let after = try state("a")["checks"]?.intValue ?? 0
                guard after == before + 1 else { throw Miss("refresh made \(after - before) checks; expected 1") }
            }
        } else {
            skip("refresh checks at once", "hello lists no refresh")
        }
        if capabilities.contains(AdapterCapability.install.rawValue) {
            check("install of a new version drops the saved update; launch then checks with the new version") {
                _ = try ok(
                    [("cmd", "install"), ("device", "a"), ("app_version", "2.0.0"), ("build", .null)],
                    "`install`"
                )
                _ = try ok([("cmd", "launch"), ("device", "a")], "`launch` after install")
                let last = try admin.admin(Admin.journal(project: Self.demo.key, limit: 1)).first?["device"]?["version"]
                guard last == "2.0.0" else {
                    throw Miss(
                        "the check after install reported version \(JSONSchema.short(last ?? .null)); expected 2.0.0"
                    )
                }
            }
        } else {
            skip("install of a new version", "hello lists no install")
        }
        if capabilities.contains(AdapterCapability.clockOffset.rawValue) {
            check("set_clock moves the device clock, not true time") {
                _ = try ok([("cmd", "set_clock"), ("device", "a"), ("clock_offset_seconds", 3600)], "`set_clock`")
                let s = try state("a")
                if let text = s["device_time"]?.stringValue, text != now.adding(seconds: 3600).rfc3339 {
                    throw Miss(
                        "device_time is \(text) after set_clock +3600 s at \(now.rfc3339); expected \(now.adding(seconds: 3600).rfc3339)"
                    )
                }
            }
        } else {
            skip("set_clock moves the device clock", "hello lists no clock_offset")
        }
        if capabilities.contains(AdapterCapability.push.rawValue) {
            check("a silent push makes a background app with a push token check at once") {
                var pushConfig = config
                pushConfig[5] = ("storage", .string(storage + "/p"))
                pushConfig.append(("push_token", "fcm-adapter-check"))
                _ = try ok(
                    [
                        ("cmd", "create"), ("device", "p"), ("now", .string(now.rfc3339)),
                        ("config", .object(pushConfig)),
                    ],
                    "`create` of p"
                )
                _ = try ok([("cmd", "launch"), ("device", "p")], "`launch` of p")
                _ = try ok([("cmd", "background"), ("device", "p")], "`background` of p")
                let before = try state("p")["checks"]?.intValue ?? 0
                _ = try ok([("cmd", "push"), ("device", "p")], "`push` to p")
                let after = try state("p")["checks"]?.intValue ?? 0
                guard after == before + 1 else {
                    throw Miss("the push made \(after - before) checks; expected 1, even in the background")
                }
            }
        } else {
            skip("a silent push makes the app check", "hello lists no push")
        }
        checkFaults(
            ok: ok,
            state: state,
            admin: admin,
            config: config,
            storage: storage,
            now: now,
            requestTimeout: helloAnswer["request_timeout_seconds"]?.numberValue
        )
        let exitTimeout = SubprocessAdapter.seconds(options.exitTimeout)
        check("at the end of stdin the adapter exits by itself within \(exitTimeout)") {
            guard adapter.closeAndWaitForExit() else {
                throw Miss(
                    "it was still running \(exitTimeout) after its stdin closed, and was killed; exit when stdin ends"
                )
            }
        }
        return Report(
            adapter: hello?.displayName ?? "",
            checks: checks,
            suite: scenarios.flatMap { scenarios in
                (try? AdapterAbilities(hello: helloAnswer)).map { $0.summary(of: scenarios) }
            }
        )
    }
}
