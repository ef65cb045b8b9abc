import JSON
import ReleaseControl

/// Durable storage under the mock's in-memory state (`--state`). Every acknowledged write reaches
/// the store before its 2xx, with events in the order they happened, one call per request; a
/// refusal turns the request into a 503 and leaves the state unchanged. Checks never reach the
/// store: they read memory.
///
/// MockServer writes through ``enqueue(_:whenDurable:)`` under its writer lock, so calls never
/// overlap and their order is the order the writes take effect; it applies each write to memory
/// at once and answers only once `whenDurable` reports the commit, so writes in flight together
/// can share one commit (group commit). A store that commits on the spot needs only ``apply(_:)``:
/// the default `enqueue` calls it and reports at once.
///
/// ```swift
/// let store = MemoryStateStore()
/// let server = try MockServer(options: MockServerOptions(store: store))
/// ```
public protocol StateStore: Sendable {
    /// Everything stored, or nil when the store is new (then MockServer starts from the seed
    /// and writes it with one `.replaced` event).
    func load() throws -> StateSnapshot?
    /// Makes `events` durable, in order, before returning.
    func apply(_ events: [StateEvent]) throws
    /// Puts `events` in line behind every earlier call and returns without waiting for the disk;
    /// `whenDurable` runs once they are committed (nil) or refused (the error). Throws, with
    /// nothing queued, when the store refuses at once. `whenDurable` never runs with an error
    /// inside this call (the caller holds its writer lock, and a refusal makes it take it again).
    ///
    /// A write enqueued after one that is refused was planned on top of it, so the store refuses
    /// it too, until MockServer has taken the stored state back (``recoverAfterRefusal()``).
    func enqueue(_ events: [StateEvent], whenDurable: @escaping @Sendable ((any Error)?) -> Void) throws
    /// Starts committing what ``enqueue(_:whenDurable:)`` queued, if nothing is on its way yet.
    /// MockServer calls it after every write, outside its writer lock.
    func commitEnqueued()
    /// Like ``commitEnqueued()``, but called on a server loop at the end of a batch of requests:
    /// a store whose commit needs no wait for the disk commits right here (no thread switch, and
    /// the batch's answers go out from the loop that holds them); else it starts the commit
    /// elsewhere. Never blocks on the disk or on another thread's commit.
    func commitEnqueuedInPlace()
    /// After a refused ``enqueue(_:whenDurable:)``: the state as stored now, for MockServer to put
    /// memory back to, and from here on the store takes writes again; nil when nothing was
    /// refused since the last call. Called under the writer lock.
    func recoverAfterRefusal() throws -> StateSnapshot?
}

extension StateStore {
    /// Commits on the spot: ``apply(_:)``, then reports.
    public func enqueue(_ events: [StateEvent], whenDurable: @escaping @Sendable ((any Error)?) -> Void) throws {
        try apply(events)
        whenDurable(nil)
    }

    /// A store that commits on the spot has nothing left to start.
    public func commitEnqueued() {}

    /// As ``commitEnqueued()``.
    public func commitEnqueuedInPlace() { commitEnqueued() }

    /// A store that commits on the spot refuses at once, so there is never anything to take back.
    public func recoverAfterRefusal() throws -> StateSnapshot? { nil }
}

/// One acknowledged write, as granular as the admin API that made it.
public enum StateEvent: Sendable, Equatable {
    /// A project was created or its push settings changed.
    case projectUpserted(key: String, apnsTopic: String?, fcmProject: String?)
    /// A rule was created or replaced (`rule.json` is its admin JSON, `id` included).
    case ruleUpserted(project: String, rule: Rule)
    case ruleDeleted(project: String, ruleId: String)
    /// A release-control change (create, replace, delete, lift-all); `change.json` to store it.
    case changeAppended(project: String, change: Change)
    case tokenUpserted(project: String, token: StateSnapshot.Token)
    case tokenDeleted(project: String, token: String)
    /// A push was sent (results pending, or already known for a synchronous sink).
    case pushRecorded(project: String, push: PushRecord)
    /// Delivery results arrived for a recorded push.
    case pushUpdated(project: String, push: PushRecord)
    /// The running total of items a module sent.
    case ingestCounted(project: String, module: String, total: Int)
    /// Everything was replaced: by `POST /admin/reset` (the seed) or `PUT /admin/state`.
    case replaced(StateSnapshot)
}
