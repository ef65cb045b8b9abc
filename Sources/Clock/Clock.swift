/// The one source of "now". Logic takes an `InstantSource` (or an explicit `now`), never the wall clock.
/// Not named `Clock`: that is the standard library's protocol (and this module's name).
public protocol InstantSource: Sendable {
    var now: Instant { get }
}

/// A handle to cancel work scheduled on a ``Scheduler``.
public protocol Cancellable: Sendable {
    func cancel()
}

/// A clock that can also run work at an instant of its own time.
///
/// With ``SystemScheduler`` the work runs on Dispatch when the wall clock gets there;
/// with ``ManualScheduler`` it runs, in deadline order, inside `advance(to:)`.
public protocol Scheduler: InstantSource {
    /// Runs `work` at or after `deadline` of this scheduler's time.
    @discardableResult
    func schedule(at deadline: Instant, _ work: @escaping @Sendable () -> Void) -> Cancellable
}
