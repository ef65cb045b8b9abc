internal import Clock
import Foundation
package import JSON
import Synchronization

/// The release control part of the Lerix SDK: keeps the last answer on the device, checks
/// when the spec says so, and tells the app what to show.
///
/// ```swift
/// let lerix = Lerix(
///     configuration: LerixConfiguration(baseURL: URL(string: "https://api.lerix.dev")!, project: "demo",
///                                       platform: .ios, appVersion: "2.3.0", build: "41"),
///     storage: try FileStorage(folder: applicationSupport + "/Lerix"))
/// let observation = lerix.observe { state in render(state.screen) }
/// lerix.start()                       // saved answer first, then a check
/// lerix.enterForeground()             // scene phase changes
/// lerix.enterBackground()
/// lerix.didReceiveSilentPush()        // silent push handler
/// lerix.refresh { fresh in render(fresh.screen) }  // checks now
/// if !lerix.isPaused(.analytics) { lerix.track(.analytics, ["event": "opened"]) }
/// ```
///
/// Every event has two forms: the plain one returns at once (the work it starts goes on in the
/// background); the `async` one returns, with the state, once that work (the check, the
/// flush of queued items) has finished, so a test needs no sleeps:
///
/// ```swift
/// let state = await lerix.start()     // the launch check has been answered (or failed)
/// ```
///
/// In `async` code Swift picks the `async` form; the plain form is what a synchronous closure
/// (a SwiftUI `onChange`, a delegate callback) calls.
///
/// All I/O goes through the injected ``Transport`` and ``Storage``, all time through the
/// injected ``DeviceClock``. Events are handled one at a time, in order, on whichever thread
/// delivers them; handlers and observers run outside the SDK's lock.
public final class Lerix: Sendable {
    /// Receives a state: an observer, or whoever waits for an event's work.
    public typealias Observer = @Sendable (LerixState) -> Void

    /// What this instance was created with.
    public let configuration: LerixConfiguration
    /// Everything that runs: the machine, its clock, transport and storage. The core's timers
    /// and requests hold it strongly, so nothing refers to an instance weakly (a weak reference
    /// moves an object's counts to a side table, one more cold cache line at every retain, every
    /// check of a fleet's devices); when the app lets this handle go, `deinit` ends the core.
    private let core: LerixCore

    /// Loads the saved answer from `storage`; nothing is sent until ``start()``.
    /// - Parameters:
    ///   - clock: the device clock and timers; tests pass a ``ManualDeviceClock``.
    ///   - transport: the network; ``URLSessionTransport`` by default.
    ///   - storage: where the answer survives restarts (``FileStorage``; ``InMemoryStorage`` in tests).
    ///   - online: whether the network is reachable now; report changes with
    ///     ``networkReachabilityChanged(isReachable:)``.
    ///   - log: where the SDK says what went wrong (a check that failed for a new reason, a save
    ///     that failed); nothing is logged without it.
    public convenience init(
        configuration: LerixConfiguration,
        clock: any DeviceClock = SystemDeviceClock(),
        transport: any Transport = URLSessionTransport(),
        storage: any Storage,
        online: Bool = true,
        log: (@Sendable (String) -> Void)? = nil
    ) {
        self.init(
            core: LerixCore(
                configuration: configuration,
                clock: clock,
                millisecondClock: clock as? any MillisecondDeviceClock,
                transport: transport,
                storage: storage,
                online: online,
                log: log
            )
        )
    }

    /// An instance on a clock known to read in milliseconds: what the adapter's devices are
    /// made with, without asking the clock's type at run time (a dynamic cast, per instance).
    package convenience init(
        configuration: LerixConfiguration,
        millisecondClock clock: any MillisecondDeviceClock,
        transport: any Transport,
        storage: any Storage,
        online: Bool,
        log: (@Sendable (String) -> Void)?
    ) {
        self.init(
            core: LerixCore(
                configuration: configuration,
                clock: clock,
                millisecondClock: clock,
                transport: transport,
                storage: storage,
                online: online,
                log: log
            )
        )
    }

    private init(core: LerixCore) {
        configuration = core.configuration
        self.core = core
    }

    /// The app let the instance go: its timer stops and no other is set; a request in flight
    /// still finishes and its answer is saved, as before.
    deinit { core.end() }

    // MARK: - Events

    /// App start: applies the saved answer at once, then checks (and sends queued items).
    public func start() { core.submit(.launch) }

    /// App start; returns once the launch check and the sends it allowed have finished.
    @discardableResult
    public func start() async -> LerixState { await core.settled(after: .launch) }

    /// Back to the foreground (web: the tab is visible again): checks if the answer is stale.
    /// A check already in flight (the launch's) is joined, not repeated.
    public func enterForeground() { core.submit(.foreground) }

    /// Back to the foreground; returns once the check it needed (if any) has finished.
    @discardableResult
    public func enterForeground() async -> LerixState { await core.settled(after: .foreground) }

    /// To the background: polling stops until the next foreground.
    public func enterBackground() { core.submit(.background) }

    /// To the background; returns once requests already in flight have finished.
    @discardableResult
    public func enterBackground() async -> LerixState { await core.settled(after: .background) }

    /// Reachability from the platform's network monitor. Back online, a check missed offline
    /// (or due on the web) runs.
    public func networkReachabilityChanged(isReachable: Bool) { core.submit(.network(online: isReachable)) }

    /// Reachability changed; returns once the check and sends it caused have finished.
    @discardableResult
    public func networkReachabilityChanged(isReachable: Bool) async -> LerixState {
        await core.settled(after: .network(online: isReachable))
    }

    /// A Lerix silent push arrived: checks at once, even in the background. During a check one
    /// more follows it (the push may announce a change made after that check left).
    public func didReceiveSilentPush() { core.submit(.push) }

    /// A silent push arrived; returns once the check it caused has finished.
    @discardableResult
    public func didReceiveSilentPush() async -> LerixState { await core.settled(after: .push) }

    /// The user tapped Later: the optional prompt hides until the next launch.
    public func later() { core.submit(.later) }

    /// The user tapped Skip: this rule's optional prompt hides for good.
    public func skip() { core.submit(.skip) }

    /// Queues items for a module; they are sent unless an SDK switch pauses the module (then
    /// they wait on the device, and go after its end). On a first launch they wait for the
    /// first answer, which may carry a switch.
    public func track(_ module: LerixModule, _ items: [TrackedItem]) { core.submit(.track(module, items.map(\.json))) }

    /// Queues items already in JSON (the adapter's hot path).
    package func track(_ module: LerixModule, json items: [JSON]) { core.submit(.track(module, items)) }

    /// Queues one item for a module.
    public func track(_ module: LerixModule, _ item: TrackedItem) { track(module, [item]) }

    /// Queues items; returns once the send they allowed has finished (at once while paused).
    @discardableResult
    public func track(_ module: LerixModule, _ items: [TrackedItem]) async -> LerixState {
        await core.settled(after: .track(module, items.map(\.json)))
    }

    /// The process is going away: timers stop, nothing in flight is applied any more.
    public func shutdown() { core.submit(.terminate) }

    /// Checks now and calls `completion` with the state once the check (and any queued behind
    /// it) finished or failed. Offline or with release control off it answers at once.
    public func refresh(completion: @escaping Observer) {
        core.refresh(completion)
    }

    /// Checks now and returns the new state (at once offline or with release control off).
    public func refresh() async -> LerixState {
        await withCheckedContinuation { continuation in
            refresh { continuation.resume(returning: $0) }
        }
    }

    // MARK: - State

    /// What the app shows now.
    public var state: LerixState { core.state }

    /// Whether an SDK switch pauses `module` now.
    public func isPaused(_ module: LerixModule) -> Bool { core.isPaused(module) }

    /// What this instance sent since it was created.
    public var statistics: LerixStatistics { core.statistics }

    /// ``LerixState/lastCheckFailure`` without working out the rest of the state.
    package var lastCheckFailure: CheckFailure? { core.lastCheckFailure }

    /// Calls `handler` with the state whenever it changes (on the thread that changed it).
    /// Keep the returned token; cancelling it stops the calls.
    public func observe(_ handler: @escaping Observer) -> LerixObservation {
        let id = core.addObserver(handler)
        return LerixObservation { [weak self] in self?.core.removeObserver(id) }
    }

    /// The state changes as an async sequence, for SwiftUI `.task { for await … }`.
    public var stateUpdates: AsyncStream<LerixState> {
        AsyncStream { continuation in
            let token = observe { continuation.yield($0) }
            continuation.onTermination = { _ in token.cancel() }
        }
    }
}

/// What runs a ``Lerix``: the machine and the driver that feeds it events one at a time and
/// performs its actions.
private final class LerixCore: Sendable {
    typealias Observer = Lerix.Observer

    /// The fields every event reads come first, beside the lock's word: the machine is a
    /// kilobyte, and behind it they were another cache line to miss per event (a fleet's
    /// instances are cold memory at 10,000 devices).
    private struct Inner {
        var draining = false
        /// The ``Lerix`` handle is gone (``LerixCore/end()``): no timer is set any more.
        var ended = false
        /// The next event waiting for the drainer, kept in place: mostly one waits (a completion a
        /// transport gave inline while its request's action ran), and the state's own words are
        /// warm where a fleet's 10,000 mailbox arrays, one a device, are cold memory.
        var nextWaiting: ReleaseControlMachine.Event?
        /// The events waiting after ``nextWaiting``, oldest first; empty (no storage) but for a burst.
        var mailbox: [ReleaseControlMachine.Event] = []
        /// A class (the virtual clocks' own handle, or a box around another clock's timer): the
        /// timer is replaced after every check, and a class existential copies as a retain.
        var timer: (any DeviceTimer & AnyObject)?
        /// What the timer runs, made once: a timer is set after every check.
        var timerWork: (@Sendable () -> Void)?
        var refreshWaiters: [Observer] = []
        /// Waiting for every request in flight to finish (the `async` events).
        var idleWaiters: [Observer] = []
        var observers: [UInt64: Observer] = [:]
        var nextObserverID: UInt64 = 0
        var machine: ReleaseControlMachine
    }

    let configuration: LerixConfiguration
    private let clock: any DeviceClock
    /// The same clock when it reads in milliseconds (the virtual ones): read per event without
    /// `Date` and `Duration`.
    private let millisecondClock: (any MillisecondDeviceClock)?
    private let transport: any Transport
    private let storage: any Storage
    private let log: (@Sendable (String) -> Void)?
    private let inner: Mutex<Inner>

    init(
        configuration: LerixConfiguration,
        clock: any DeviceClock,
        millisecondClock: (any MillisecondDeviceClock)?,
        transport: any Transport,
        storage: any Storage,
        online: Bool,
        log: (@Sendable (String) -> Void)?
    ) {
        self.configuration = configuration
        self.clock = clock
        self.millisecondClock = millisecondClock
        self.transport = transport
        self.storage = storage
        self.log = log
        let saved = storage.load(ReleaseControlMachine.storageKey).map(SavedAnswer.init(encoded:)) ?? SavedAnswer()
        var machine = ReleaseControlMachine(configuration: configuration, saved: saved, online: online)
        machine.reportsStateChanges = false  // until someone observes
        inner = Mutex(Inner(machine: machine))
    }

    // MARK: - State

    var state: LerixState {
        inner.withLock { s in
            let (now, uptime) = reading()
            s.machine.followClock(now: now, uptimeMilliseconds: uptime)
            return s.machine.state(at: now)
        }
    }

    func isPaused(_ module: LerixModule) -> Bool {
        inner.withLock { s in
            let (now, uptime) = reading()
            s.machine.followClock(now: now, uptimeMilliseconds: uptime)
            return s.machine.isPaused(module, at: now)
        }
    }

    var statistics: LerixStatistics {
        inner.withLock { $0.machine.statistics }
    }

    var lastCheckFailure: CheckFailure? {
        inner.withLock { $0.machine.lastCheckFailure }
    }

    func addObserver(_ handler: @escaping Observer) -> UInt64 {
        inner.withLock { s -> UInt64 in
            s.nextObserverID += 1
            s.observers[s.nextObserverID] = handler
            s.machine.reportsStateChanges = true
            return s.nextObserverID
        }
    }

    func removeObserver(_ id: UInt64) {
        inner.withLock { s in
            s.observers.removeValue(forKey: id)
            s.machine.reportsStateChanges = !s.observers.isEmpty
        }
    }

    func refresh(_ completion: @escaping Observer) {
        inner.withLock { $0.refreshWaiters.append(completion) }
        submit(.refresh)
    }

    /// The handle is gone: the timer stops, and none is set again; its work, which holds this
    /// core, goes with it.
    func end() {
        let timer = inner.withLock { s -> (any DeviceTimer & AnyObject)? in
            s.ended = true
            s.timerWork = nil
            defer { s.timer = nil }
            return s.timer
        }
        timer?.cancel()
    }

    // MARK: - Driver

    /// Runs events one at a time: whoever finds the mailbox idle drains it, so a transport that
    /// answers inline, or from another thread, never interleaves two events. An event that
    /// finds no one draining is handled at once, without a trip through the mailbox.
    /// The drainer borrows the spare list of actions while it drains, and gives it back, empty,
    /// when done: no list is allocated per event. In the lock that ends the drain it also takes
    /// the idle waiters, if the machine is idle.
    func submit(_ event: ReleaseControlMachine.Event) {
        var actions: [ReleaseControlMachine.Action] = []
        var told: Told?
        let drains = inner.withLock { s -> Bool in
            guard !s.draining else {
                if s.nextWaiting == nil { s.nextWaiting = event } else { s.mailbox.append(event) }
                return false
            }
            s.draining = true
            Self.spareActions.withLock { swap(&actions, &$0) }
            handle(event, in: &s, into: &actions)
            return true
        }
        guard drains else { return }
        while true {
            // Each action is moved out of the list and consumed: not copied, then destroyed twice
            // (`remove(at:)` moves; `removeFirst()`, a collection's generic one, copies).
            while !actions.isEmpty { perform(actions.remove(at: 0)) }
            let more = inner.withLock { s -> Bool in
                guard let next = s.nextWaiting else {
                    s.draining = false
                    told = idleWaiters(in: &s)
                    return false
                }
                s.nextWaiting = nil
                if !s.mailbox.isEmpty {
                    s.nextWaiting = s.mailbox.removeFirst()
                    // A burst is over: its storage goes, so the next check's test reads no cold array.
                    if s.mailbox.isEmpty { s.mailbox = [] }
                }
                handle(next, in: &s, into: &actions)
                return true
            }
            guard more else { break }
        }
        Self.spareActions.withLock { swap(&actions, &$0) }
        if let told { for waiter in told.whom { waiter(told.state) } }
    }

    /// The list of actions lent to whichever instance drains, shared by all: a fleet's instances
    /// drain one after another, and one warm list costs less than one kept by each instance (cold
    /// memory at 10,000 devices). An instance that drains while another holds it starts from an
    /// empty list, and the last one given back is kept.
    private static let spareActions = Mutex<[ReleaseControlMachine.Action]>([])

    /// The machine's answer to `event` at the device clock's reading now, appended to `actions`.
    private func handle(
        _ event: ReleaseControlMachine.Event,
        in s: inout Inner,
        into actions: inout [ReleaseControlMachine.Action]
    ) {
        let (now, uptime) = reading()
        s.machine.handle(event, now: now, uptimeMilliseconds: uptime, into: &actions)
    }

    /// The device clock now, as the machine takes it.
    private func reading() -> (Instant, Int64) {
        if let millisecondClock { return (millisecondClock.instant, millisecondClock.uptimeMilliseconds) }
        return (Instant(clock.now), clock.uptime.milliseconds)
    }

    /// Returns with the state once `event` and every request in flight have finished.
    func settled(after event: ReleaseControlMachine.Event) async -> LerixState {
        await withCheckedContinuation { continuation in
            inner.withLock { $0.idleWaiters.append { continuation.resume(returning: $0) } }
            submit(event)
        }
    }

    /// Takes the waiters for idleness, with the state they are told, once nothing is in flight
    /// and no one drains; nil otherwise (after most events: no one waits).
    private func idleWaiters(in s: inout Inner) -> Told? {
        guard !s.idleWaiters.isEmpty, !s.draining, s.machine.isIdle else { return nil }
        let waiting = s.idleWaiters
        s.idleWaiters = []
        return Told(state: s.machine.state(at: reading().0), whom: waiting)
    }

    /// A state and who is told it, boxed: after most events no one is, and a nil of this costs
    /// one word, where an optional state in a tuple was built and destroyed field by field.
    private final class Told {
        let state: LerixState
        let whom: [Observer]
        init(state: LerixState, whom: [Observer]) {
            self.state = state
            self.whom = whom
        }
    }

    private func perform(_ action: ReleaseControlMachine.Action) {
        switch action {
        case .send(let request, let purpose):
            transport.send(request) { [self] result in
                submit(.completed(purpose, result))
            }
        case .scheduleTimer(let deadline):
            // The work comes out through a captured variable, not in the lock's (generic) result:
            // a closure returned through a generic wraps in a thunk both ways, two allocations.
            var timerWork: (@Sendable () -> Void)?
            let old = inner.withLock { s -> (any DeviceTimer & AnyObject)? in
                guard !s.ended else { return nil }
                // Strong: the handle's deinit ends this core, which drops the work (no weak reference).
                if s.timerWork == nil { s.timerWork = { [self] in submit(.timer) } }
                timerWork = s.timerWork
                let previous = s.timer
                s.timer = nil
                return previous
            }
            old?.cancel()
            if let deadline, let timerWork {
                // The machine plans on the wall clock; the timer waits by uptime from now.
                let timer: any DeviceTimer & AnyObject
                if let millisecondClock {
                    timer = millisecondClock.schedule(
                        afterMilliseconds: deadline.milliseconds(since: millisecondClock.instant),
                        timerWork
                    )
                } else {
                    timer = BoxedDeviceTimer(
                        clock.schedule(
                            after: .milliseconds(deadline.milliseconds(since: Instant(clock.now))),
                            timerWork
                        )
                    )
                }
                // Ended meanwhile (the handle went on another thread): this timer is not kept.
                let kept = inner.withLock { s -> Bool in
                    guard !s.ended else { return false }
                    s.timer = timer
                    return true
                }
                if !kept { timer.cancel() }
            }
        case .persist(let saved):
            do {
                try storage.save(ReleaseControlMachine.storageKey, saved.encoded)
            } catch {
                log?("lerix: cannot save the release control answer: \(error)")
            }
        case .stateChanged:
            // The state is worked out only for someone who listens (a fleet's checks mostly have
            // no one): nothing the size of a state is made, moved or destroyed for no one.
            guard
                let told = inner.withLock({ s -> Told? in
                    s.observers.isEmpty
                        ? nil : Told(state: s.machine.state(at: reading().0), whom: Array(s.observers.values))
                })
            else { return }
            for observer in told.whom { observer(told.state) }
        case .checkFailed(let failure):
            log?("lerix: check failed (\(failure.kind.rawValue)): \(failure.reason)")
        case .checkSettled:
            guard
                let told = inner.withLock({ s -> Told? in
                    guard !s.refreshWaiters.isEmpty else { return nil }
                    let waiting = s.refreshWaiters
                    s.refreshWaiters = []
                    return Told(state: s.machine.state(at: reading().0), whom: waiting)
                })
            else { return }
            for waiter in told.whom { waiter(told.state) }
        }
    }
}

/// Another clock's timer as a class, so ``Lerix`` keeps every timer in one small form.
private final class BoxedDeviceTimer: DeviceTimer {
    let timer: any DeviceTimer
    init(_ timer: any DeviceTimer) { self.timer = timer }
    func cancel() { timer.cancel() }
}

/// Keeps an ``Lerix/observe(_:)`` registration alive until cancelled.
public final class LerixObservation: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    /// Stops the observer's calls; later calls do nothing.
    public func cancel() {
        let action = onCancel.withLock { handler -> (@Sendable () -> Void)? in
            let current = handler
            handler = nil
            return current
        }
        action?()
    }
}
