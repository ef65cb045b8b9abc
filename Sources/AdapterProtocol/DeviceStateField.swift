/// The fields of a `state` answer (ADAPTER.md "State", plus the Swift adapter's additions), by
/// wire name: the host writes them and the scenario runner's expectations are checked against them.
///
/// ```swift
/// DeviceStateField.failedChecks.rawValue                 // "failed_checks"
/// DeviceStateField.lastFailure.nestedKeys                // ["kind", "status", "reason", "at"]
/// ```
public enum DeviceStateField: String, CaseIterable, Sendable {
    case screen
    case requiredUpdate = "required_update"
    case optionalUpdate = "optional_update"
    case maintenance
    case pausedModules = "paused_modules"
    case queued, sent, checks
    case notModified = "not_modified"
    /// The checks among `checks` that got no usable answer (the Swift adapter's addition).
    case failedChecks = "failed_checks"
    /// The latest of them: `kind`, `status`, `reason`, `at` (device time), or null.
    case lastFailure = "last_failure"
    case lastSuccess = "last_success"
    case etag, polling
    /// Launched and not terminated.
    case running
    case online
    /// The device's clock, offset included.
    case deviceTime = "device_time"

    /// `screen` values, in the order the app shows them.
    public static let screens = ["required_update", "maintenance", "optional_update", "none"]
    /// `last_failure.kind` values.
    public static let failureKinds = ["connection", "status", "body"]

    /// Keys of the object (or, for `maintenance`, of each object in the list) this field holds.
    public var nestedKeys: [String]? {
        switch self {
        case .requiredUpdate: return ["rule", "below", "store_url", "message"]
        case .optionalUpdate: return ["rule", "kind", "below", "store_url", "message", "becomes_required_on"]
        case .maintenance: return ["rule", "starts_at", "ends_at", "message"]
        case .queued, .sent: return AdapterVocabulary.modules
        case .lastFailure: return ["kind", "status", "reason", "at"]
        default: return nil
        }
    }
}
