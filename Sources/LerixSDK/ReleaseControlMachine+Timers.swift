internal import Clock

extension ReleaseControlMachine {
    /// Sends queued items of modules no switch pauses, and a due push token registration.
    mutating func sendQueuedWork(now: Instant, into actions: inout [Action]) {
        guard isRunning, isOnline, !waitsForFirstAnswer else { return }
        // Runs after every event; most devices queue nothing: then no module is looked up.
        if !saved.queue.isEmpty {
            for module in LerixModule.ingestModules where !ingestInFlight.contains(module) {
                guard let items = saved.queue[module], !items.isEmpty, !isPaused(module, at: now) else { continue }
                let batch = items.prefix(Self.ingestBatchSize)
                ingestInFlight.insert(module)
                actions.append(.send(ingestRequest(module, batch), .ingest(module, count: batch.count)))
            }
        }
        if tokenRegistration == .due, let token = configuration.pushToken, !isPaused(.pushTokenRegistration, at: now) {
            tokenRegistration = .inFlight
            actions.append(.send(pushTokenRequest(token), .pushToken))
        }
    }

    /// With nothing saved the device knows no SDK switch yet: module work (items, the push token)
    /// waits for the first answer, which may pause it. Release control off never checks, so
    /// nothing would ever come: then it does not wait.
    var waitsForFirstAnswer: Bool { configuration.enabled && saved.receivedAt == nil }

    /// Sets the one timer to the earliest moment something changes: the next poll, a window's
    /// start or end, a switch's end, a deadline, the optional update's expiry.
    mutating func scheduleWakeUp(now: Instant, into actions: inout [Action]) {
        // A check in flight reschedules when it completes; doing it now too would only churn
        // the timer (set to a far boundary, then cancelled a moment later).
        if check != .idle && isRunning { return }
        var next: Instant?
        func consider(_ instant: Instant) {
            guard instant > now else { return }
            if next.map({ instant < $0 }) ?? true { next = instant }
        }
        if isRunning {
            if isPolling && isOnline { consider(nextPoll(now: now)) }
            for window in saved.maintenance where configuration.enabled {
                consider(saved.deviceTime(atServerTime: window.start))
                consider(saved.deviceTime(atServerTime: window.effectiveEnd))
            }
            for sdkSwitch in saved.sdkSwitches { consider(saved.deviceTime(atServerTime: sdkSwitch.endsAt)) }
            if let optional = saved.optionalUpdate, configuration.enabled {
                if configuration.appliesDeadlinesOffline, optional.kind == .recommended,
                    let deadline = optional.deadline
                {
                    consider(saved.deviceTime(atServerTime: deadline))
                }
                if let lastSuccess = saved.lastSuccess {
                    consider(lastSuccess.adding(seconds: Self.optionalUpdateMaximumAgeSeconds))
                }
            }
        }
        if next != timerAt {
            timerAt = next
            actions.append(.scheduleTimer(at: next))
        }
    }
}
