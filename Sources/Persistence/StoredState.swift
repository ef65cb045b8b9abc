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

/// One project's durable state. Every list keeps the order its items were first written.
struct StoredProject: Sendable, Equatable {
    var key: String
    /// The project's own fields (`apns_topic`, `fcm_project`, and anything else its owner wants
    /// kept, such as id counters), as one JSON object.
    var attributes: JSON
    var rules: [StoredItem]
    var changes: [StoredRecord]
    var pushTokens: [StoredItem]
    var pushes: [StoredRecord]
    /// Items received per ingest module.
    var ingest: [StoredIngestCount]

    init(
        key: String, attributes: JSON = .object([]), rules: [StoredItem] = [], changes: [StoredRecord] = [],
        pushTokens: [StoredItem] = [], pushes: [StoredRecord] = [], ingest: [StoredIngestCount] = []
    ) {
        self.key = key
        self.attributes = attributes
        self.rules = rules
        self.changes = changes
        self.pushTokens = pushTokens
        self.pushes = pushes
        self.ingest = ingest
    }
}

/// A record with a text key (a rule id, a push token) and its JSON.
struct StoredItem: Sendable, Equatable {
    var id: String
    var body: JSON

    init(id: String, body: JSON) {
        self.id = id
        self.body = body
    }
}

/// A record with a numeric id (a change, a push) and its JSON.
struct StoredRecord: Sendable, Equatable {
    var id: Int
    var body: JSON

    init(id: Int, body: JSON) {
        self.id = id
        self.body = body
    }
}

/// How many items one ingest module received.
struct StoredIngestCount: Sendable, Equatable {
    var module: String
    var count: Int

    init(module: String, count: Int) {
        self.module = module
        self.count = count
    }
}
