import AdapterProtocol
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
        let state = device.sdk.state  // worked out once: every field below reads this one
        let statistics = device.statistics
        let paused = state.pausedModules.map { JSON.string($0.rawValue) }
        let queued = JSONObject(
            uniqueKeysWithValues: LerixModule.ingestModules.map {
                (key: $0.rawValue, value: .number(Double(state.queued[$0] ?? 0)))
            }
        )
        let sent = JSONObject(
            uniqueKeysWithValues: LerixModule.ingestModules.map {
                (key: $0.rawValue, value: .number(Double(statistics.sent[$0] ?? 0)))
            }
        )
        let lastFailure = device.lastCheckFailure(in: state)
        func value(_ field: DeviceStateField) -> JSON {
            switch field {
            case .screen: return .string(state.screen.rawValue)
            case .requiredUpdate: return state.requiredUpdate?.json ?? .null
            case .optionalUpdate: return state.optionalUpdate?.json ?? .null
            case .maintenance: return .array(state.maintenance.map(\.json))
            case .pausedModules: return .array(paused)
            case .queued: return .object(queued)
            case .sent: return .object(sent)
            case .checks: return .number(Double(statistics.checks))
            case .notModified: return .number(Double(statistics.notModified))
            case .failedChecks: return .number(Double(statistics.failedChecks))
            case .lastFailure: return lastFailure.map(Self.failureJSON) ?? .null
            case .lastSuccess: return state.lastSuccess.map { .string(Instant($0).rfc3339) } ?? .null
            case .etag: return state.etag.map(JSON.string) ?? .null
            case .polling: return .bool(state.polling)
            case .running: return .bool(device.isRunning)
            case .online: return .bool(device.isOnline)
            case .deviceTime: return .string(device.clock.instant.rfc3339)
            }
        }
        // Every field, in the vocabulary's order: one list for the host and the runner's checks.
        return DeviceStateField.allCases.map { ($0.rawValue, value($0)) }
    }
}
