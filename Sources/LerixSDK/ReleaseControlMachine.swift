package import Clock
package import JSON

/// The SDK's whole release control logic as a value: it takes an event and the device clock's
/// `now`, updates its state, and returns the actions its owner performs (send a request, set
/// the one wake-up timer, persist, tell observers). It does no I/O and reads no clock, so
/// every spec row is a plain unit test.
///
/// ```swift
/// var machine = ReleaseControlMachine(configuration: config, saved: SavedAnswer())
/// let actions = machine.handle(.launch, now: Instant(rfc3339: "2026-12-02T11:00:00.000Z")!)
/// // [.stateChanged, .send(<GET …/release-control?platform=ios…>, .check), .scheduleTimer(at: …)]
/// ```
package struct ReleaseControlMachine: Sendable {
    /// Something that happened to the app or the network.
    package enum Event: Equatable, Sendable {
        case launch
        case foreground
        case background
        case network(online: Bool)
        case push
        case refresh
        /// The wake-up timer set by the last ``Action/scheduleTimer(at:)`` fired.
        case timer
        case later
        case skip
        case track(LerixModule, [JSON])
        case completed(Purpose, TransportResult)
        /// The process dies: nothing in flight will complete.
        case terminate
    }

    /// What a request is for, handed back with its result.
    package enum Purpose: Equatable, Sendable {
        case check
        case ingest(LerixModule, count: Int)
        case pushToken
    }

    /// Work for the owner.
    package enum Action: Equatable, Sendable {
        case send(TransportRequest, Purpose)
        /// Replace the wake-up timer; nil cancels it. The instant is on the device clock.
        case scheduleTimer(at: Instant?)
        /// Boxed: the saved answer is the largest payload, and actions are copied on their way
        /// to the owner; a box keeps every action small.
        indirect case persist(SavedAnswer)
        /// ``state(at:)`` differs from what observers last saw.
        case stateChanged
        /// No check is running or queued any more: whoever waits for `refresh` can go on.
        case checkSettled
        /// A check failed, for a new reason or after a success: worth a line in the log.
        case checkFailed(CheckFailure)
    }

    /// The key under which ``SavedAnswer`` is stored.
    package static let storageKey = "lerix-release-control.json"
    /// Checks never come closer together than this, whatever lifetime an answer sets.
    package static let minimumPollSeconds = 10
    /// The optional update is dropped this long after the last successful check.
    package static let optionalUpdateMaximumAgeSeconds: Int64 = 7 * 86_400
    /// A wall-clock change smaller than this is jitter between two readings, not the user.
    package static let clockJumpToleranceMilliseconds: Int64 = 100
    /// At most this many items go in one ingest request.
    package static let ingestBatchSize = 500
    /// A 304 that only renews freshness is persisted at most this often (device seconds), and
    /// whenever the app goes to the background, loses the network or ends.
    package static let renewalPersistSeconds: Int64 = 6 * 3600

    // The small fields every check reads come first, then the saved answer; what a check
    // seldom reads (the configuration, the last state reported) comes last. An instance is a
    // kilobyte and a fleet's instances are cold memory at 10,000 devices: each 64 bytes a
    // check touches is a cache miss, and the 313-byte last state sat between the rest.
    package internal(set) var app = AppPhase.stopped
    package var isRunning: Bool { app != .stopped }
    package var isForeground: Bool { app == .foreground }
    package internal(set) var isOnline = true
    package internal(set) var isDeferredByLater = false
    /// Whether ``handle(_:now:)`` compares the state before and after each event to report
    /// ``Action/stateChanged``; an owner with no observers turns it off to save the work.
    package var reportsStateChanges = true {
        didSet { if reportsStateChanges != oldValue { lastReportedState = nil } }
    }

    package internal(set) var check = CheckPhase.idle
    package internal(set) var missedCheck = MissedCheck.none
    /// Whether a check failed since the last success (a repeated failure is not reported again).
    var failedSinceSuccess = false
    var lastAttempt: Instant?
    var ingestInFlight: Set<LerixModule> = []
    package internal(set) var tokenRegistration = TokenRegistration.notDue
    var timerAt: Instant?
    var lastPersistedRenewal: Instant?
    /// A renewal not yet written: written on the next persist, background, offline or end.
    var renewalUnsaved = false
    /// `…/release-control?…` for this configuration (it never changes for one instance), made
    /// at the first check: an adapter's device makes an instance at `create` that never checks.
    lazy var checkURL: String = Self.checkURL(for: configuration)
    /// The last check request and the ETag it carries (see ``checkRequest()``).
    var lastCheckRequest: CheckRequest?
    /// The last `Cache-Control` read (see ``maxAge(_:)``).
    var lastCacheControl: CacheControlReading?
    /// The wall clock and uptime at the last event of this process (see ``followClock``).
    var lastClockReading: (wall: Instant, uptime: Int64)?

    package internal(set) var statistics = LerixStatistics()
    package internal(set) var saved: SavedAnswer
    /// Why the last check that failed failed (this instance only, like ``statistics``).
    package internal(set) var lastCheckFailure: CheckFailure?
    package let configuration: LerixConfiguration
    var lastReportedState: LerixState?

    package init(configuration: LerixConfiguration, saved: SavedAnswer, online: Bool = true) {
        self.configuration = configuration
        self.saved = saved
        self.isOnline = online
        self.lastPersistedRenewal = saved.receivedAt
    }

    mutating func persist(into actions: inout [Action]) {
        renewalUnsaved = false
        actions.append(.persist(saved))
    }

    /// Whether `module` is paused by a saved SDK switch at `now`.
    package func isPaused(_ module: LerixModule, at now: Instant) -> Bool {
        let serverNow = saved.serverTime(at: now)
        return saved.sdkSwitches.contains { $0.endsAt > serverNow && $0.modules.contains(module) }
    }

    /// Whether the SDK checks every lifetime while in the foreground.
    package var isPolling: Bool {
        isRunning && isForeground && configuration.enabled && saved.lifetime <= 60
    }

    /// Handles one event at device time `now`. With the uptime (a clock that never jumps),
    /// a change of the device clock since the last event is followed first (``followClock``).
    package mutating func handle(_ event: Event, now: Instant, uptimeMilliseconds: Int64? = nil) -> [Action] {
        var actions: [Action] = []
        actions.reserveCapacity(4)  // most events give two or three: grown once, not three times
        handle(event, now: now, uptimeMilliseconds: uptimeMilliseconds, into: &actions)
        return actions
    }

    /// ``handle(_:now:uptimeMilliseconds:)`` appending the actions to `actions`: an owner that
    /// keeps one list across events (``Lerix`` does) allocates none per event.
    package mutating func handle(
        _ event: Event,
        now: Instant,
        uptimeMilliseconds: Int64?,
        into actions: inout [Action]
    ) {
        if let uptimeMilliseconds, followClock(now: now, uptimeMilliseconds: uptimeMilliseconds) {
            persist(into: &actions)
        }
        switch event {
        case .launch:
            launch(now: now, into: &actions)
        case .foreground:
            guard isRunning else { break }
            app = .foreground
            if saved.isStale(at: now) { startCheck(now: now, joining: true, into: &actions) }
        case .background:
            if isRunning { app = .background }
            if renewalUnsaved { persist(into: &actions) }
        case .network(let online):
            let cameOnline = online && !isOnline
            isOnline = online
            if !online && renewalUnsaved { persist(into: &actions) }
            if cameOnline && isRunning {
                let pollDue = isPolling && nextPoll(now: now) <= now
                let webBackOnline = configuration.platform == .web && isForeground && saved.isStale(at: now)
                if missedCheck != .none || pollDue || webBackOnline {
                    startCheck(now: now, joining: missedCheck != .owed(followUp: true), into: &actions)
                }
            }
        case .push:
            if isRunning && configuration.supportsPush { startCheck(now: now, joining: false, into: &actions) }
        case .refresh:
            if isRunning && configuration.enabled && isOnline {
                startCheck(now: now, joining: false, into: &actions)
            } else {
                actions.append(.checkSettled)
            }
        case .timer:
            timerAt = nil
            if isPolling && nextPoll(now: now) <= now { startCheck(now: now, joining: true, into: &actions) }
        case .later:
            isDeferredByLater = true
        case .skip:
            if let rule = state(at: now).optionalUpdate?.rule, !saved.skippedRules.contains(rule) {
                saved.skippedRules.append(rule)
                if saved.skippedRules.count > 100 { saved.skippedRules.removeFirst() }
                persist(into: &actions)
            }
        case .track(let module, let items):
            guard module != .pushTokenRegistration, !items.isEmpty else { break }
            saved.queue[module, default: []].append(contentsOf: items)
            persist(into: &actions)
        case .completed(let purpose, let result):
            completed(purpose, result, now: now, into: &actions)
        case .terminate:
            if renewalUnsaved { persist(into: &actions) }
            app = .stopped
            check = .idle
            ingestInFlight = []
            if tokenRegistration == .inFlight { tokenRegistration = .due }
            if timerAt != nil { actions.append(.scheduleTimer(at: nil)) }
            timerAt = nil
            actions.append(.checkSettled)
            return
        }
        settleDeadline(now: now, into: &actions)
        sendQueuedWork(now: now, into: &actions)
        scheduleWakeUp(now: now, into: &actions)
        if reportsStateChanges {
            let current = state(at: now)
            if current != lastReportedState {
                lastReportedState = current
                actions.append(.stateChanged)
            }
        }
    }

    /// Whether nothing is in flight: every request sent has completed.
    package var isIdle: Bool { check == .idle && ingestInFlight.isEmpty && tokenRegistration != .inFlight }

    /// Follows a change of the device clock within this process. The wall clock moved by more
    /// (or less) than the uptime since the last reading: the user set the clock. Every saved
    /// device-clock reading moves with it, and the server-time correction the other way, so
    /// ages, the poll, the 7-day drop and window times stay what they truly are, whichever
    /// way the clock went. Returns whether it moved anything (then the saved answer is due a
    /// write). Jumps under ``clockJumpToleranceMilliseconds`` are reading jitter, not a change.
    @discardableResult
    package mutating func followClock(now: Instant, uptimeMilliseconds uptime: Int64) -> Bool {
        defer { lastClockReading = (now, uptime) }
        guard let last = lastClockReading else { return false }
        let jump = now.milliseconds(since: last.wall) - (uptime - last.uptime)
        guard abs(jump) >= Self.clockJumpToleranceMilliseconds else { return false }
        func moved(_ reading: Instant?) -> Instant? { reading?.adding(milliseconds: jump) }
        saved.receivedAt = moved(saved.receivedAt)
        saved.lastSuccess = moved(saved.lastSuccess)
        saved.serverOffsetMilliseconds -= jump
        lastAttempt = moved(lastAttempt)
        lastPersistedRenewal = moved(lastPersistedRenewal)
        timerAt = moved(timerAt)  // the timer waits by uptime: the same moment, renamed
        renewalUnsaved = true
        return true
    }

    private mutating func launch(now: Instant, into actions: inout [Action]) {
        app = .foreground
        isDeferredByLater = false
        missedCheck = .none
        if !saved.updatesBelong(toVersion: configuration.appVersion, build: configuration.build) {
            // A saved update belongs to one app version: a new install never sees its old answer.
            let hadUpdate = saved.requiredUpdate != nil || saved.optionalUpdate != nil
            saved.requiredUpdate = nil
            saved.optionalUpdate = nil
            saved.etag = nil
            saved.appVersion = configuration.appVersion
            saved.build = configuration.build
            if hadUpdate || saved.receivedAt != nil { persist(into: &actions) }
        }
        // The saved answer applies before any request: observers see it first.
        if reportsStateChanges { lastReportedState = state(at: now) }
        actions.append(.stateChanged)
        let registers = configuration.pushToken.map { !$0.isEmpty } == true && configuration.supportsPush
        if !registers {
            tokenRegistration = .notDue
        } else if tokenRegistration == .notDue {
            tokenRegistration = .due
        }
        startCheck(now: now, joining: true, into: &actions)
    }

    /// The next poll: a lifetime after the last attempt; at once when that attempt lies in the
    /// device's future (the clock was set back, the real interval is unknown).
    func nextPoll(now: Instant) -> Instant {
        let interval = Int64(max(saved.lifetime, Self.minimumPollSeconds))
        guard let lastAttempt else { return now.adding(seconds: interval) }
        return lastAttempt <= now ? lastAttempt.adding(seconds: interval) : now
    }

    /// Starts a check unless release control is off; offline, remembers it for the reconnect.
    ///
    /// With a check in flight, a need the in-flight answer meets (launch, foreground, poll:
    /// "is my answer current?") joins it: one check per need. A push or a `refresh` says the
    /// state may have changed after that check left, so one more check follows it.
    private mutating func startCheck(now: Instant, joining: Bool, into actions: inout [Action]) {
        guard isRunning, configuration.enabled else { return }
        guard isOnline else {
            missedCheck = .owed(followUp: !joining || missedCheck == .owed(followUp: true))
            return
        }
        if case .inFlight(let followUp) = check {
            check = .inFlight(followUp: followUp || !joining)
            return
        }
        check = .inFlight(followUp: false)
        missedCheck = .none
        lastAttempt = now
        statistics.checks += 1
        actions.append(.send(checkRequest(), .check))
    }
}
