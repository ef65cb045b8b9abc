package import Clock

extension ReleaseControlMachine {
    /// The observable state at device time `now`, from the saved answer and the offline rules.
    package func state(at now: Instant) -> LerixState {
        var state = LerixState()
        let serverNow = saved.serverTime(at: now)
        let releaseControl = configuration.enabled
        // Updates saved for another version or build (an install not yet launched) never show.
        let updatesApply =
            saved.updatesBelong(toVersion: configuration.appVersion, build: configuration.build)
            || saved.receivedAt == nil
        if releaseControl && configuration.hasVersion && updatesApply {
            if let required = saved.requiredUpdate ?? optionalTurnedRequired(now: now) {
                state.requiredUpdate = required
                state.optionalUpdate = saved.requiredUpdate == nil ? nil : optionalStillFresh(now: now)
            } else {
                state.optionalUpdate = optionalStillFresh(now: now)
            }
        }
        // Most devices save no window and no switch: read per `state` (an expectation over a
        // fleet reads one per device), so an empty list costs no filtering, set or sorting.
        if releaseControl && !saved.maintenance.isEmpty {
            state.maintenance = saved.maintenance
                .filter { $0.effectiveEnd > serverNow }
                .sorted { $0.start < $1.start }
            state.activeMaintenance = state.maintenance.first { $0.isActive(at: serverNow) }
        }
        if !saved.sdkSwitches.isEmpty {
            var paused = Set<LerixModule>()
            for sdkSwitch in saved.sdkSwitches where sdkSwitch.endsAt > serverNow {
                paused.formUnion(sdkSwitch.modules)
            }
            state.pausedModules = paused.sorted()
        }
        for (module, items) in saved.queue where !items.isEmpty { state.queued[module] = items.count }
        state.lastSuccess = saved.lastSuccess?.date
        state.etag = saved.etag
        state.lastCheckFailure = lastCheckFailure
        state.polling = isPolling

        if state.requiredUpdate != nil {
            state.screen = .requiredUpdate
        } else if state.activeMaintenance != nil {
            state.screen = .maintenance
        } else if let optional = state.optionalUpdate, !isDeferredByLater, !saved.skippedRules.contains(optional.rule) {
            state.screen = .optionalUpdate
        }
        return state
    }

    /// The saved optional update, unless 7 days passed since the last successful check.
    func optionalStillFresh(now: Instant) -> OptionalUpdate? {
        guard let optional = saved.optionalUpdate, let expiry = optionalExpiry, now < expiry,
            saved.isPossibleReading(saved.lastSuccess, at: now)
        else { return nil }
        return optional
    }

    /// When the saved optional update is dropped (device clock): 7 days after the last success.
    var optionalExpiry: Instant? {
        saved.lastSuccess?.adding(seconds: Self.optionalUpdateMaximumAgeSeconds)
    }

    /// Deadlines pass offline too (Android, Flutter): a saved recommended update whose
    /// becomes-required-on passed while it was still saved is a required update from then on;
    /// the 7-day drop of optional updates no longer applies to it.
    func optionalTurnedRequired(now: Instant) -> RequiredUpdate? {
        guard configuration.appliesDeadlinesOffline, let optional = saved.optionalUpdate, optional.kind == .recommended,
            let deadline = optional.deadline, deadline <= saved.serverTime(at: now),
            let expiry = optionalExpiry, saved.deviceTime(atServerTime: deadline) < expiry
        else { return nil }
        return optional.asRequired
    }

    /// Saves a recommended update whose deadline passed as the required update it became, so
    /// it keeps blocking whatever the device clock does later (set back, a week offline, a new
    /// process): only a successful check that says otherwise lifts it.
    mutating func settleDeadline(now: Instant, into actions: inout [Action]) {
        // Runs after every event; most devices have no optional update saved at all.
        if case .none = saved.optionalUpdate { return }
        guard configuration.enabled, configuration.hasVersion, saved.requiredUpdate == nil,
            saved.updatesBelong(toVersion: configuration.appVersion, build: configuration.build),
            let required = optionalTurnedRequired(now: now)
        else { return }
        saved.requiredUpdate = required
        saved.optionalUpdate = nil
        persist(into: &actions)
    }
}
