import JSON
import ReleaseControl

/// Durable storage under the mock's in-memory state (`--state`). MockServer calls `apply` for
/// every acknowledged write *before* it answers 2xx, with events in the order they happened,
/// one call per request; a throw turns the request into a 503 and leaves the state unchanged.
/// Checks never reach the store: they read memory.
///
/// Calls never overlap (MockServer serialises writers), so a store needs no locking of its own
/// for ordering; it may still batch commits across calls as long as `apply` returns only once
/// the events are durable.
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
