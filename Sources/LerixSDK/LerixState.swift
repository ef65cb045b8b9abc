import Foundation

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
        /// Block the app: ``LerixState/requiredUpdate``.
        case requiredUpdate = "required_update"
        /// Block the app: ``LerixState/activeMaintenance``.
        case maintenance
        /// Offer ``LerixState/optionalUpdate`` (Later and Skip hide it).
        case optionalUpdate = "optional_update"
        /// Nothing to show.
        case none
    }

    /// What to show now.
    public var screen: Screen = .none
    /// The saved required update (also one a recommended update turned into at its deadline).
    public var requiredUpdate: RequiredUpdate?
    /// The saved optional update (also while Later or Skip hides its prompt).
    public var optionalUpdate: OptionalUpdate?
    /// Every saved window not yet ended, active or upcoming, earliest start first.
    public var maintenance: [MaintenanceWindow] = []
    /// The window blocking now, if any.
    public var activeMaintenance: MaintenanceWindow?
    /// Modules an SDK switch pauses now.
    public var pausedModules: [LerixModule] = []
    /// Items waiting on the device, per module (modules with none are absent).
    public var queued: [LerixModule: Int] = [:]
    /// When a check last succeeded (device clock).
    public var lastSuccess: Date?
    /// Why the latest failed check failed (kept after later successes; compare with
    /// ``lastSuccess``). Nil while no check of this instance has failed.
    public var lastCheckFailure: CheckFailure?
    /// The saved answer's ETag (sent as `If-None-Match`); nil when a part could not be read.
    public var etag: String?
    /// Whether the SDK checks every lifetime while in the foreground.
    public var polling: Bool = false

    /// The state of an SDK with nothing saved.
    public init() {}
}
