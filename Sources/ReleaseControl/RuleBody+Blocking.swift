import Clock

extension RuleBody {
    /// True when creating, editing (before or after), ending or deleting this rule at `now`
    /// is a blocking change: a required update (a recommended one past its deadline counts),
    /// or a maintenance window that is active or starts within the hour.
    public func isBlockingState(at now: Instant) -> Bool {
        switch self {
        case .requiredUpdate, .recommendedUpdate: return isRequired(at: now)
        case .maintenance(let w): return w.isActiveOrImminent(at: now)
        case .optionalUpdate, .sdkSwitch: return false
        }
    }

    /// What a lift-all removes at `now`.
    func isLiftedByLiftAll(at now: Instant) -> Bool {
        switch self {
        case .maintenance: return true
        default: return isRequired(at: now)
        }
    }
}
