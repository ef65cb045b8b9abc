import JSON
import MockServer

/// One acknowledged write as the file stores it: MockServer's `StateEvent`s map one to one onto
/// these, with domain values already turned into their admin-API JSON. A batch commits atomically.
///
/// ```swift
/// try database.apply(.tokenUpserted(project: "demo", token: StoredItem(id: "abc", body: ["platform": "ios"])))
/// ```
enum StoredEvent: Sendable, Equatable {
    /// Creates the project or replaces its attributes (its rules, tokens and history stay).
    case projectUpserted(key: String, attributes: JSON)
    /// Creates the rule or replaces its body, keeping its place in the list.
    case ruleUpserted(project: String, rule: StoredItem)
    case ruleDeleted(project: String, id: String)
    case changeAppended(project: String, id: Int, body: JSON)
    /// Registers the token or replaces its record (platform, registration time).
    case tokenUpserted(project: String, token: StoredItem)
    /// A registration as MockServer made it: the file writes its record's bytes straight from
    /// the fields (``StateSnapshot/Token/writeJSON(into:)``), building no JSON value, since
    /// registrations are the busiest write. Stored as ``tokenUpserted(project:token:)`` is.
    case tokenRegistered(project: String, token: StateSnapshot.Token)
    case tokenDeleted(project: String, token: String)
    /// Records a push or replaces it (delivery results arrive after it is first recorded).
    case pushRecorded(project: String, id: Int, body: JSON)
    /// A module's running total of ingested items (writes arrive in the order they took effect).
    case ingestCounted(project: String, module: String, total: Int)
    /// Replaces everything (reset to seed, `PUT /admin/state`). The stored seed is replaced too
    /// when `state.seed` is not nil.
    case replaced(StoredState)
}
