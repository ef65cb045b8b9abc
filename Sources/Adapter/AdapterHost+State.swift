import Clock
import JSON
import LerixSDK

extension AdapterHost {
    /// `{"kind": "connection" | "status" | "body", "status": 404 | null, "reason": "…", "at": "<device time>"}`.
    static func failureJSON(_ failure: CheckFailure) -> JSON {
        .object([
            ("kind", .string(failure.kind.rawValue)), ("status", failure.status.map { .number(Double($0)) } ?? .null),
            ("reason", .string(failure.reason)), ("at", .string(failure.instant.rfc3339)),
        ])
    }

    /// The `state` answer's fields (ADAPTER.md "State"), plus `running`, `online` and `device_time`.
    func stateFields(_ device: AdapterDevice) -> [(String, JSON)] {
        let state = device.sdk.state
        let statistics = device.statistics
        var queued = JSONObject()
        var sent = JSONObject()
        var paused = state.pausedModules.map { JSON.string($0.rawValue) }
        if paused.isEmpty { paused = [] }
        for module in LerixModule.ingestModules {
            queued[module.rawValue] = .number(Double(state.queued[module] ?? 0))
            sent[module.rawValue] = .number(Double(statistics.sent[module] ?? 0))
        }
        return [
            ("screen", .string(state.screen.rawValue)),
            ("required_update", state.requiredUpdate?.json ?? .null),
            ("optional_update", state.optionalUpdate?.json ?? .null),
            ("maintenance", .array(state.maintenance.map(\.json))),
            ("paused_modules", .array(paused)),
            ("queued", .object(queued)),
            ("sent", .object(sent)),
            ("checks", .number(Double(statistics.checks))),
            ("not_modified", .number(Double(statistics.notModified))),
            ("failed_checks", .number(Double(statistics.failedChecks))),
            ("last_failure", device.lastCheckFailure.map(Self.failureJSON) ?? .null),
            ("last_success", state.lastSuccess.map { .string(Instant($0).rfc3339) } ?? .null),
            ("etag", state.etag.map(JSON.string) ?? .null),
            ("polling", .bool(state.polling)),
            ("running", .bool(device.isRunning)),
            ("online", .bool(device.isOnline)),
            ("device_time", .string(device.clock.instant.rfc3339)),
        ]
    }
}
