import AdminClient
import Clock
import JSON

extension AdapterConformance {
    /// One fault armed on the check endpoint, and what the SDK must make of it.
    struct FaultCase {
        var name: String
        var body: JSON
        /// The `last_failure.kind` it must report; nil: not a failure (wrong types is a successful
        /// check whose wrong parts are ignored).
        var failure: String?
        var status: Int?
    }

    static let faultCases: [FaultCase] = [
        FaultCase(
            name: "a 503",
            body: .object([("kind", "status"), ("status", 503), ("count", 1)]),
            failure: "status",
            status: 503
        ),
        FaultCase(
            name: "a body that is not JSON",
            body: .object([("kind", "malformed"), ("count", 1)]),
            failure: "body"
        ),
        FaultCase(
            name: "wrong types in every field",
            body: .object([("kind", "wrong_types"), ("count", 1)]),
            failure: nil
        ),
        // Until cleared: a client may retry a reset once (docs/behaviour.md), and must still fail.
        FaultCase(name: "a reset connection", body: .object([("kind", "reset")]), failure: "connection"),
    ]

    /// Arms each fault kind for one check (`terminate` then `launch`, which every adapter has) of a
    /// device with a saved answer: the adapter must answer on (the SDK survived), keep showing the
    /// saved answer, and report the failure in `state` (`failed_checks`, `last_failure`). A delay
    /// past the SDK's own timeout runs in a second adapter process given time to wait for it.
    func checkFaults(
        ok: ([(String, JSON)], String) throws -> JSON,
        state: (String) throws -> JSON,
        admin: HTTPServerConnection,
        config: [(String, JSON)],
        storage: String,
        now: Instant,
        requestTimeout: Double?
    ) {
        var device: [(String, JSON)] = config
        device[5] = ("storage", .string(storage + "/f"))
        var ready = false
        check("faults: a device with a saved answer to arm them against") {
            _ = try ok(
                [("cmd", "create"), ("device", "f"), ("now", .string(now.rfc3339)), ("config", .object(device))],
                "`create` of f"
            )
            _ = try ok([("cmd", "launch"), ("device", "f")], "`launch` of f")
            guard try state("f")["last_success"] != .null else {
                throw Miss("f's first check did not succeed, so there is no saved answer to keep")
            }
            ready = true
        }
        for fault in Self.faultCases {
            let name =
                "\(fault.name) on a check: the SDK survives, keeps its saved answer"
                + (fault.failure.map { " and reports a \($0) failure in state" }
                    ?? ", ignores the wrong parts and does not keep its ETag")
            guard ready else {
                skip(name, "no device with a saved answer")
                continue
            }
            check(name) {
                if fault.failure == nil {
                    // A change, so the wrong-types answer carries a new ETag the SDK must not keep.
                    try admin.admin(Self.demo.createRule(.object([("type", "optional_update"), ("below", "99.0.0")])))
                }
                let before = try state("f")
                try admin.admin(Self.demo.addFault(fault.body))
                defer { _ = try? admin.request(Self.demo.clearFaults) }
                _ = try ok([("cmd", "terminate"), ("device", "f")], "`terminate` of f")
                do {
                    _ = try ok([("cmd", "launch"), ("device", "f")], "`launch` of f under \(fault.name)")
                } catch let failure as AdapterFailure {
                    throw Miss("the adapter did not survive \(fault.name): \(failure)")
                }
                let after: JSON
                do {
                    after = try state("f")
                } catch let failure as AdapterFailure {
                    throw Miss("the adapter did not survive \(fault.name): \(failure)")
                }
                try Self.expectSavedAnswerKept(before, after, fault)
            }
        }
        checkDelay(device: device, admin: admin, now: now, requestTimeout: requestTimeout)
    }

    /// What every fault must leave: the same screen; a failure counted and described, or (wrong
    /// types) a success that kept the previous ETag.
    static func expectSavedAnswerKept(_ before: JSON, _ after: JSON, _ fault: FaultCase) throws {
        guard after["screen"] == before["screen"] else {
            throw Miss(
                "after \(fault.name) the screen is \(JSONSchema.short(after["screen"] ?? .null)), was \(JSONSchema.short(before["screen"] ?? .null)): the saved answer must keep applying"
            )
        }
        let failed = (before["failed_checks"]?.intValue ?? 0, after["failed_checks"]?.intValue ?? 0)
        guard let kind = fault.failure else {
            guard failed.1 == failed.0 else {
                throw Miss(
                    "failed_checks went from \(failed.0) to \(failed.1): a wrong-types answer is a successful check, its wrong parts ignored"
                )
            }
            // Not kept: the SDK sends no If-None-Match next (null) or its previous one.
            guard after["etag"] == before["etag"] || after["etag"] == .null else {
                throw Miss(
                    "the ETag went from \(JSONSchema.short(before["etag"] ?? .null)) to \(JSONSchema.short(after["etag"] ?? .null)): a wrong-types answer's ETag must not be kept, or a 304 would confirm a state the SDK could not read"
                )
            }
            return
        }
        guard failed.1 == failed.0 + 1 else {
            throw Miss(
                "failed_checks went from \(failed.0) to \(failed.1) over one check that got \(fault.name); expected +1 (a retry of a reset is the same check)"
            )
        }
        let last = after["last_failure"] ?? .null
        guard last["kind"]?.stringValue == kind else {
            throw Miss("last_failure is \(JSONSchema.short(last)); expected kind \(kind)")
        }
        if let status = fault.status, last["status"]?.intValue != status {
            throw Miss("last_failure is \(JSONSchema.short(last)); expected status \(status)")
        }
    }

    /// Seconds past the SDK's request timeout that the delayed check is answered.
    static let delayPastTimeout: Double = 10

    /// A check answered only after the SDK's own request timeout (`hello`'s
    /// `request_timeout_seconds`) must fail as a `connection` failure, the saved answer kept. A
    /// second adapter process, allowed that long per command, so the first's deadline stays short;
    /// it also gets `create` first, as every process after the first does.
    ///
    /// The answer comes 10 s past the timeout: with 1 s, a loaded machine that ran the SDK's
    /// timer late let the answer in first, and a conforming SDK failed the check. A conforming
    /// SDK gives up at its timeout whatever the delay, so the margin costs it nothing.
    func checkDelay(device: [(String, JSON)], admin: HTTPServerConnection, now: Instant, requestTimeout: Double?) {
        let name =
            "a check answered after the SDK's request timeout: the SDK gives up, keeps its saved answer and reports a connection failure"
        guard let timeout = requestTimeout, timeout <= 30 else {
            skip(
                name,
                requestTimeout == nil ? "hello gives no request_timeout_seconds" : "request_timeout_seconds over 30"
            )
            return
        }
        let delay = timeout + Self.delayPastTimeout
        check(name) {
            var slow = options
            // Time for an SDK without a timeout to take the late answer, so the check says so.
            slow.commandTimeout = max(options.commandTimeout, delay + 10)
            let adapter = try SubprocessAdapter(command: command, options: slow)
            defer { adapter.close() }
            var nextId = 1000
            func ok(_ pairs: [(String, JSON)], _ what: String) throws -> JSON {
                nextId += 1
                let answer = try adapter.exchange(
                    rawLine: JSON.object([("id", .number(Double(nextId)))] + pairs).serializedString,
                    describing: what
                )
                guard answer["ok"] == true else {
                    throw Miss("\(what) was refused: \(answer["error"]?.stringValue ?? JSONSchema.short(answer))")
                }
                return answer
            }
            _ = try ok(
                [("cmd", "create"), ("device", "f"), ("now", .string(now.rfc3339)), ("config", .object(device))],
                "`create` as the first request of a new process"
            )
            _ = try ok([("cmd", "launch"), ("device", "f")], "`launch` of f")
            let before = try ok([("cmd", "state"), ("device", "f")], "`state` of f")
            try admin.admin(
                Self.demo.addFault(.object([("kind", "delay"), ("seconds", .number(delay)), ("count", 1)]))
            )
            defer { _ = try? admin.request(Self.demo.clearFaults) }
            _ = try ok([("cmd", "terminate"), ("device", "f")], "`terminate` of f")
            do {
                _ = try ok([("cmd", "launch"), ("device", "f")], "`launch` of f under a delay of \(delay) s")
            } catch let failure as AdapterFailure {
                throw Miss(
                    "the adapter did not answer `launch` within \(slow.commandTimeout) s under the delay: \(failure)"
                )
            }
            let after = try ok([("cmd", "state"), ("device", "f")], "`state` of f")
            try Self.expectSavedAnswerKept(
                before,
                after,
                FaultCase(name: "a delay past the request timeout", body: .null, failure: "connection")
            )
        }
    }
}
