import Clock
import JSON
import Synchronization

/// The release control part of the Lerix SDK: keeps the last answer on the device, checks
/// when the spec says so, and tells the app what to show.
///
/// ```swift
/// let lerix = Lerix(
///     configuration: LerixConfiguration(baseURL: "https://api.lerix.dev", project: "demo",
///                                       platform: .ios, appVersion: "2.3.0", build: "41"),
///     storage: try FileStorage(folder: applicationSupport + "/Lerix"))
/// let observation = lerix.observe { state in render(state.screen) }
/// lerix.start()                       // saved answer first, then a check
/// // scene phase changes:
/// lerix.enterForeground(); lerix.enterBackground()
/// // silent push handler:
/// lerix.didReceiveSilentPush()
/// let fresh = await lerix.refresh()
/// if !lerix.isPaused(.analytics) { … }
/// ```
///
/// All I/O goes through the injected ``Transport`` and ``Storage``, all time through the
/// injected `Scheduler`; the logic lives in ``ReleaseControlMachine``. Events are handled one
/// at a time, in order, on whichever thread delivers them; handlers run outside the lock.
public final class Lerix: Sendable {
    public typealias Observer = @Sendable (LerixState) -> Void

    private struct Inner {
        var machine: ReleaseControlMachine
        var mailbox: [ReleaseControlMachine.Event] = []
        var draining = false
        var timer: Cancellable?
        var refreshWaiters: [Observer] = []
        var observers: [UInt64: Observer] = [:]
        var nextObserverID: UInt64 = 0
    }

    public let configuration: LerixConfiguration
    private let scheduler: any Scheduler
    private let transport: any Transport
    private let storage: any Storage
    private let log: (@Sendable (String) -> Void)?
    private let inner: Mutex<Inner>

    /// Loads the saved answer from `storage`; nothing is sent until ``start()``.
    /// - Parameters:
    ///   - scheduler: the clock and timers (a device clock; tests and the adapter pass a manual one).
    ///   - online: whether the network is reachable now; report changes with
    ///     ``networkReachabilityChanged(isReachable:)``.
    public init(
        configuration: LerixConfiguration, scheduler: any Scheduler = SystemScheduler(),
        transport: any Transport = URLSessionTransport(), storage: any Storage, online: Bool = true,
        log: (@Sendable (String) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.scheduler = scheduler
        self.transport = transport
        self.storage = storage
        self.log = log
        let saved = storage.load(ReleaseControlMachine.storageKey).map(SavedAnswer.init(encoded:)) ?? SavedAnswer()
        var machine = ReleaseControlMachine(configuration: configuration, saved: saved, online: online)
        machine.reportsStateChanges = false  // until someone observes
        inner = Mutex(Inner(machine: machine))
    }

    /// App start: applies the saved answer at once, then checks (and sends queued items).
    public func start() { submit(.launch) }

    /// Back to the foreground (web: the tab is visible again): checks if the answer is stale.
    public func enterForeground() { submit(.foreground) }

    /// To the background: polling stops until the next foreground.
    public func enterBackground() { submit(.background) }

    /// Reachability from the platform's network monitor.
    public func networkReachabilityChanged(isReachable: Bool) { submit(.network(online: isReachable)) }

    /// A Lerix silent push arrived: checks at once, even in the background.
    public func didReceiveSilentPush() { submit(.push) }

    /// The user tapped Later: the optional prompt hides until the next launch.
    public func later() { submit(.later) }

    /// The user tapped Skip: this rule's optional prompt hides for good.
    public func skip() { submit(.skip) }

    /// Queues items for a module; they are sent unless an SDK switch pauses the module.
    public func track(_ module: LerixModule, items: [JSON]) { submit(.track(module, items)) }

    public func track(_ module: LerixModule, _ item: JSON) { track(module, items: [item]) }

    /// The process is going away: timers stop, nothing in flight is applied any more.
    public func shutdown() { submit(.terminate) }

    /// Checks now and calls `completion` with the state once the check (and any queued behind
    /// it) finished or failed. Offline or with release control off it answers at once.
    public func refresh(completion: @escaping Observer) {
        inner.withLock { $0.refreshWaiters.append(completion) }
        submit(.refresh)
    }

    /// Checks now and returns the new state.
    public func refresh() async -> LerixState {
        await withCheckedContinuation { continuation in
            refresh { continuation.resume(returning: $0) }
        }
    }

    /// What the app shows now.
    public var state: LerixState {
        inner.withLock { $0.machine.state(at: scheduler.now) }
    }

    /// Whether an SDK switch pauses `module` now.
    public func isPaused(_ module: LerixModule) -> Bool {
        inner.withLock { $0.machine.isPaused(module, at: scheduler.now) }
    }

    /// What this instance sent since it was created.
    public var statistics: LerixStatistics {
        inner.withLock { $0.machine.statistics }
    }

    /// Calls `handler` with the state whenever it changes (on the thread that changed it).
    /// Keep the returned token; cancelling it stops the calls.
    public func observe(_ handler: @escaping Observer) -> LerixObservation {
        let id = inner.withLock { s -> UInt64 in
            s.nextObserverID += 1
            s.observers[s.nextObserverID] = handler
            s.machine.reportsStateChanges = true
            return s.nextObserverID
        }
        return LerixObservation { [weak self] in
            self?.inner.withLock { s in
                s.observers.removeValue(forKey: id)
                s.machine.reportsStateChanges = !s.observers.isEmpty
            }
        }
    }

    /// The state changes as an async sequence, for SwiftUI `.task { for await … }`.
    public var stateUpdates: AsyncStream<LerixState> {
        AsyncStream { continuation in
            let token = observe { continuation.yield($0) }
            continuation.onTermination = { _ in token.cancel() }
        }
    }

    // MARK: - Driver

    /// Runs events one at a time: whoever finds the mailbox idle drains it, so a transport that
    /// answers inline, or from another thread, never interleaves two events.
    private func submit(_ event: ReleaseControlMachine.Event) {
        let shouldDrain = inner.withLock { s -> Bool in
            s.mailbox.append(event)
            if s.draining { return false }
            s.draining = true
            return true
        }
        guard shouldDrain else { return }
        while true {
            let actions: [ReleaseControlMachine.Action]? = inner.withLock { s in
                guard !s.mailbox.isEmpty else {
                    s.draining = false
                    return nil
                }
                let next = s.mailbox.removeFirst()
                return s.machine.handle(next, now: scheduler.now)
            }
            guard let actions else { return }
            for action in actions { perform(action) }
        }
    }

    private func perform(_ action: ReleaseControlMachine.Action) {
        switch action {
        case .send(let request, let purpose):
            transport.send(request) { [self] result in
                submit(.completed(purpose, result))
            }
        case .scheduleTimer(let deadline):
            let old = inner.withLock { s -> Cancellable? in
                let previous = s.timer
                s.timer = nil
                return previous
            }
            old?.cancel()
            if let deadline {
                let handle = scheduler.schedule(at: deadline) { [weak self] in self?.submit(.timer) }
                inner.withLock { $0.timer = handle }
            }
        case .persist(let saved):
            do {
                try storage.save(ReleaseControlMachine.storageKey, saved.encoded)
            } catch {
                log?("lerix: cannot save the release control answer: \(error)")
            }
        case .stateChanged:
            let (state, observers) = inner.withLock { s in
                (s.machine.state(at: scheduler.now), Array(s.observers.values))
            }
            for observer in observers { observer(state) }
        case .checkFailed(let failure):
            log?("lerix: check failed (\(failure.kind.rawValue)): \(failure.reason)")
        case .checkSettled:
            let (state, waiters) = inner.withLock { s -> (LerixState, [Observer]) in
                let waiting = s.refreshWaiters
                s.refreshWaiters = []
                return (s.machine.state(at: scheduler.now), waiting)
            }
            for waiter in waiters { waiter(state) }
        }
    }
}

/// Keeps an ``Lerix/observe(_:)`` registration alive until cancelled.
public final class LerixObservation: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    public func cancel() {
        let action = onCancel.withLock { handler -> (@Sendable () -> Void)? in
            let current = handler
            handler = nil
            return current
        }
        action?()
    }
}
