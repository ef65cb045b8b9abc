import Clock
import JSON

/// What the app shows and what the SDK holds, at one instant: the observable state.
///
/// ```swift
/// switch lerix.state.screen {
/// case .requiredUpdate: showBlockingUpdate(lerix.state.requiredUpdate)
/// case .maintenance:    showMaintenance(lerix.state.activeMaintenance)
/// case .optionalUpdate: showPrompt(lerix.state.optionalUpdate, later: lerix.later, skip: lerix.skip)
/// case .none:           break
/// }
/// ```
public struct LerixState: Equatable, Sendable {
    /// What blocks or prompts, in priority order: a required update, then an active maintenance
    /// window, then an optional update the user has not deferred.
    public enum Screen: String, Sendable {
        case requiredUpdate = "required_update"
        case maintenance
        case optionalUpdate = "optional_update"
        case none
    }

    public var screen: Screen = .none
    public var requiredUpdate: RequiredUpdate?
    /// The saved optional update (also while Later or Skip hides its prompt).
    public var optionalUpdate: OptionalUpdate?
    /// Every saved window not yet ended, active or upcoming, earliest start first.
    public var maintenance: [MaintenanceWindow] = []
    /// The window blocking now, if any.
    public var activeMaintenance: MaintenanceWindow?
    public var pausedModules: [LerixModule] = []
    /// Items waiting on the device, per module (modules with none are absent).
    public var queued: [LerixModule: Int] = [:]
    /// When a check last succeeded (device clock).
    public var lastSuccess: Instant?
    /// Why the latest failed check failed (kept after later successes; compare with
    /// ``lastSuccess``). Nil while no check of this instance has failed.
    public var lastCheckFailure: CheckFailure?
    public var etag: String?
    /// Whether the SDK checks every lifetime while in the foreground.
    public var polling: Bool = false

    public init() {}
}
