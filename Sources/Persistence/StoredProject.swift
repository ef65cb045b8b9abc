import JSON

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
        key: String,
        attributes: JSON = .object([]),
        rules: [StoredItem] = [],
        changes: [StoredRecord] = [],
        pushTokens: [StoredItem] = [],
        pushes: [StoredRecord] = [],
        ingest: [StoredIngestCount] = []
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
