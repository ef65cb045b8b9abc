import JSON

/// Everything a state file holds, as rows of JSON: what the file loads into and what a
/// `.replaced` event writes. Bodies are the JSON the admin API shows, so the file stays readable
/// with the `sqlite3` shell and the storage layer needs no knowledge of rule semantics.
///
/// ```swift
/// let state = StoredState(seed: config, projects: [
///     StoredProject(key: "demo", attributes: .object([("apns_topic", "dev.lerix.demo")]),
///                   pushTokens: [StoredItem(id: "abc", body: .object([("token", "abc"), ("platform", "ios")]))]),
/// ])
/// ```
struct StoredState: Sendable, Equatable {
    /// The seed (`--config` contents, or the default), kept so `POST /admin/reset` works after a
    /// restart without `--config`. Nil only for files written before a seed was stored.
    var seed: JSON?
    /// Projects in the order they were first created.
    var projects: [StoredProject]

    init(seed: JSON? = nil, projects: [StoredProject] = []) {
        self.seed = seed
        self.projects = projects
    }

    /// The project with `key`, if any.
    subscript(project key: String) -> StoredProject? {
        projects.first { $0.key == key }
    }
}
