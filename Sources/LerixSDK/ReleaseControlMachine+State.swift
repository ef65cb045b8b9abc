import Clock

extension ReleaseControlMachine {
    /// The observable state at device time `now`, from the saved answer and the offline rules.
    public func state(at now: Instant) -> LerixState {
        var state = LerixState()
        let serverNow = saved.serverTime(at: now)
        let releaseControl = configuration.enabled
        // Updates saved for another version or build (an install not yet launched) never show.
        let updatesApply = saved.updatesBelong(toVersion: configuration.appVersion, build: configuration.build)
            || saved.receivedAt == nil
        if releaseControl && configuration.hasVersion && updatesApply {
            if let required = saved.requiredUpdate {
                state.requiredUpdate = required
                state.optionalUpdate = optionalStillFresh(now: now)
            } else if let optional = optionalStillFresh(now: now) {
                if configuration.appliesDeadlinesOffline, optional.kind == .recommended,
                   let deadline = optional.becomesRequiredOn, deadline <= serverNow {
                    // Deadlines pass offline too: answer as the server would have.
                    state.requiredUpdate = optional.asRequired
                } else {
                    state.optionalUpdate = optional
                }
            }
        }
        if releaseControl {
            state.maintenance = saved.maintenance
                .filter { $0.effectiveEnd > serverNow }
                .sorted { $0.startsAt < $1.startsAt }
            state.activeMaintenance = state.maintenance.first { $0.isActive(at: serverNow) }
        }
        var paused = Set<LerixModule>()
        for sdkSwitch in saved.sdkSwitches where sdkSwitch.endsAt > serverNow {
            paused.formUnion(sdkSwitch.modules)
        }
        state.pausedModules = paused.sorted()
        for (module, items) in saved.queue where !items.isEmpty { state.queued[module] = items.count }
        state.lastSuccess = saved.lastSuccess
        state.etag = saved.etag
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
    private func optionalStillFresh(now: Instant) -> OptionalUpdate? {
        guard let optional = saved.optionalUpdate, let lastSuccess = saved.lastSuccess else { return nil }
        let age = now.milliseconds(since: lastSuccess)
        return age < Self.optionalUpdateMaximumAgeSeconds * 1000 ? optional : nil
    }
}
