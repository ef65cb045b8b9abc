import AdapterProtocol
import Clock
import JSON
import LerixSDK

/// One device's `state` (ADAPTER.md "State") read at one instant, typed. The `state` command
/// answers with its ``fields``; a caller in this process reads single fields with
/// ``value(_:)``, so a fleet's expectations format (and parse back) only the fields they name.
/// Either way each field has one encoding, ``value(_:)``. A class: a reading is passed around
/// and read field by field, and copying one reference beats copying (retaining) every part.
///
/// ```swift
/// let state = try host.state(of: "phone").get()
/// state.value(.screen)       // "none"
/// state.value(.checks)       // 1
/// state.fields.count         // 17, what `{"cmd":"state"}` answers besides id and ok
/// ```
public final class DeviceState: Sendable {
    /// What the SDK of the device's current (or last) process holds now.
    let sdk: LerixState
    /// Counters since `create`, across launches.
    let statistics: LerixStatistics
    /// The latest failed check since `create`.
    let lastFailure: CheckFailure?
    let running: Bool
    let online: Bool
    /// The device's clock, offset included.
    let deviceTime: Instant

    init(of device: AdapterDevice) {
        let state = device.sdk.state  // worked out once: every field reads this one
        sdk = state
        statistics = device.statistics
        lastFailure = device.lastCheckFailure(in: state)
        running = device.isRunning
        online = device.isOnline
        deviceTime = device.clock.instant
    }

    /// The field as the `state` answer writes it.
    public func value(_ field: DeviceStateField) -> JSON {
        switch field {
        case .screen: return .string(sdk.screen.rawValue)
        case .requiredUpdate: return sdk.requiredUpdate?.json ?? .null
        case .optionalUpdate: return sdk.optionalUpdate?.json ?? .null
        case .maintenance: return .array(sdk.maintenance.map(\.json))
        case .pausedModules: return .array(sdk.pausedModules.map { .string($0.rawValue) })
        case .queued: return Self.perModule(sdk.queued)
        case .sent: return Self.perModule(statistics.sent)
        case .checks: return .number(Double(statistics.checks))
        case .notModified: return .number(Double(statistics.notModified))
        case .failedChecks: return .number(Double(statistics.failedChecks))
        case .lastFailure: return lastFailure.map(Self.failureJSON) ?? .null
        case .lastSuccess: return sdk.lastSuccess.map { .string(Instant($0).rfc3339) } ?? .null
        case .etag: return sdk.etag.map(JSON.string) ?? .null
        case .polling: return .bool(sdk.polling)
        case .running: return .bool(running)
        case .online: return .bool(online)
        case .deviceTime: return .string(deviceTime.rfc3339)
        }
    }

    /// Every field, in the vocabulary's order: the `state` answer's fields besides `id` and `ok`.
    public var fields: [(String, JSON)] { DeviceStateField.allCases.map { ($0.rawValue, value($0)) } }

    /// `queued` and `sent`: every ingest module, 0 for those without items.
    static func perModule(_ counts: [LerixModule: Int]) -> JSON {
        .object(
            JSONObject(
                uniqueKeysWithValues: LerixModule.ingestModules.map {
                    (key: $0.rawValue, value: .number(Double(counts[$0] ?? 0)))
                }
            )
        )
    }

    /// `{"kind": "connection" | "status" | "body", "status": 404 | null, "reason": "…", "at": "<device time>"}`.
    static func failureJSON(_ failure: CheckFailure) -> JSON {
        .object([
            ("kind", .string(failure.kind.rawValue)), ("status", failure.status.map { .number(Double($0)) } ?? .null),
            ("reason", .string(failure.reason)), ("at", .string(failure.instant.rfc3339)),
        ])
    }
}
