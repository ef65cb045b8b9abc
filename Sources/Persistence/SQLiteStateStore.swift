import JSON
import MockServer

/// MockServer's ``StateStore`` on an SQLite file: what `serve --state FILE` runs on.
///
/// Every acknowledged write reaches `apply` before its 2xx and returns only once committed
/// (WAL; see ``StateDurability`` for the synchronous level). Checks never come here: MockServer
/// answers them from memory. The file also keeps the seed it was created from, so
/// `POST /admin/reset` returns to that seed after a restart, with or without `--config`.
///
/// Precedence: an existing file is loaded as it is and `seed` is ignored; a missing (or empty)
/// file is created holding `seed`, both as the seed and as the starting state.
///
/// ```swift
/// let store = try SQLiteStateStore.open(path: "state.db", seed: configSeed ?? .defaultSeed)  // throws(StateFileError)
/// var options = MockServerOptions(store: store)
/// options.seed = store.seed            // the file's seed wins over --config for an existing file
/// let server = try MockServer(options: options)
/// ```
public final class SQLiteStateStore: StateStore {
    private let file: StateFile
    private let snapshot: StateSnapshot

    /// The state file's path, as given.
    public var path: String { file.path }
    /// True when `open` created the file (from `seed`); false when it loaded an existing one.
    public var created: Bool { file.created }
    /// The seed `POST /admin/reset` returns to: the one the file was created with.
    public let seed: StateSnapshot

    private init(file: StateFile, snapshot: StateSnapshot, seed: StateSnapshot) {
        self.file = file
        self.snapshot = snapshot
        self.seed = seed
    }

    /// Opens `path`, or creates it holding `seed` when it does not exist or is empty.
    ///
    /// Refuses with a message that names the file, leaving it as it was: bytes that are not
    /// SQLite, another program's SQLite file, a damaged file, a file from a newer lerix-mock, a
    /// file another process has open, contents that no longer read back as a valid state.
    public static func open(
        path: String, seed: StateSnapshot, durability: StateDurability = .default
    ) throws(StateFileError) -> SQLiteStateStore {
        let file = try StateFile.open(path: path, seed: StoredState(seed: seed.json, projects: seed.storedProjects), durability: durability)
        do {
            let stored = file.initialState
            let snapshot = try StateSnapshot.restoring(stored.projects, path: path)
            let storedSeed = try stored.seed.map { json throws(StateFileError) in
                try StateSnapshot.restoring(json, what: "the stored seed", path: path)
            } ?? seed
            return SQLiteStateStore(file: file, snapshot: snapshot, seed: storedSeed)
        } catch {
            file.close()
            throw error
        }
    }

    /// The state as the file held it when opened. Never nil: a new file already holds the seed.
    public func load() throws -> StateSnapshot? {
        snapshot
    }

    /// Commits `events` in one transaction and returns once they are durable.
    /// Throws ``StateStoreError`` when the disk refuses (MockServer answers 503; nothing changes).
    public func apply(_ events: [StateEvent]) throws(StateStoreError) {
        try file.write(events.map(\.stored))
    }

    /// Two-phase writing, for a caller that serialises its writers (as MockServer does) but
    /// wants them to share commits: `enqueue` where the order is decided (under the writer lock;
    /// it never blocks on the disk), then `wait()` on the result after releasing that lock. Writes
    /// commit in enqueue order, and each `wait()` returns only once its events are durable, so
    /// N requests in flight cost one commit instead of N.
    ///
    /// ```swift
    /// let pending = writerLock.withLock { store.enqueue(events) }   // order fixed, no I/O
    /// try pending.wait()                                           // durable, shared commit
    /// ```
    public func enqueue(_ events: [StateEvent]) -> PendingWrite {
        PendingWrite(file: file, pending: file.enqueue(events.map(\.stored)))
    }

    /// Everything in the file now (after every write that returned before this call).
    public func loadSnapshot() throws(StateStoreError) -> StateSnapshot {
        let stored = try file.loadSnapshot()
        do {
            return try StateSnapshot.restoring(stored.projects, path: path)
        } catch {
            throw .readFailed(path: path, detail: error.description)
        }
    }

    /// The most writes one commit has carried so far.
    var largestBatch: Int { file.largestBatch }

    /// Makes every later write fail as on a read-only disk (tests only).
    func refuseWritesForTesting() {
        file.refuseWritesForTesting()
    }

    /// Closes the file once the running commit is done; closing folds the write-ahead log back into
    /// the file and removes it, so call it on a clean shutdown. Later writes throw `.closed`.
    public func close() {
        file.close()
    }
}

extension StateSnapshot {
    /// The snapshot as rows of JSON, for `.replaced` and for a new file.
    var storedProjects: [StoredProject] {
        projects.map { project in
            var attributes: [(String, JSON)] = []
            if let topic = project.apnsTopic { attributes.append(("apns_topic", .string(topic))) }
            if let fcm = project.fcmProject { attributes.append(("fcm_project", .string(fcm))) }
            return StoredProject(
                key: project.key,
                attributes: .object(attributes),
                rules: project.rules.map { StoredItem(id: $0.id, body: $0.json) },
                changes: project.changes.map { StoredRecord(id: $0.id, body: $0.json) },
                pushTokens: project.pushTokens.map { StoredItem(id: $0.token, body: $0.json) },
                pushes: project.pushes.map { StoredRecord(id: $0.id, body: $0.json) },
                ingest: project.ingest.sorted { $0.key < $1.key }.map { StoredIngestCount(module: $0.key, count: $0.value) })
        }
    }

    /// Reads rows back through the same validation `PUT /admin/state` uses, so a file can never
    /// load into a state the admin API could not have made.
    static func restoring(_ projects: [StoredProject], path: String) throws(StateFileError) -> StateSnapshot {
        let json = JSON.object([("projects", .array(projects.map { project in
            var pairs: [(String, JSON)] = [("key", .string(project.key))]
            for (key, value) in project.attributes.objectValue ?? JSONObject() where key == "apns_topic" || key == "fcm_project" {
                pairs.append((key, value))
            }
            pairs.append(("rules", .array(project.rules.map(\.body))))
            pairs.append(("push_tokens", .array(project.pushTokens.map(\.body))))
            pairs.append(("changes", .array(project.changes.map(\.body))))
            pairs.append(("pushes", .array(project.pushes.map(\.body))))
            pairs.append(("ingest", .object(project.ingest.map { ($0.module, .number(Double($0.count))) })))
            return .object(pairs)
        }))])
        return try restoring(json, what: "the stored state", path: path)
    }

    static func restoring(_ json: JSON, what: String, path: String) throws(StateFileError) -> StateSnapshot {
        do {
            return try StateSnapshot(json: json)
        } catch {
            let problems = error.problems.prefix(3).map { "\($0.pointer): \($0.message)" }.joined(separator: "; ")
            throw .corrupt(path: path, detail: "\(what) does not read back: \(problems)")
        }
    }
}

extension StateEvent {
    /// The event as the file stores it: domain values as their admin-API JSON.
    var stored: StoredEvent {
        switch self {
        case .projectUpserted(let key, let apnsTopic, let fcmProject):
            var attributes: [(String, JSON)] = []
            if let apnsTopic { attributes.append(("apns_topic", .string(apnsTopic))) }
            if let fcmProject { attributes.append(("fcm_project", .string(fcmProject))) }
            return .projectUpserted(key: key, attributes: .object(attributes))
        case .ruleUpserted(let project, let rule):
            return .ruleUpserted(project: project, rule: StoredItem(id: rule.id, body: rule.json))
        case .ruleDeleted(let project, let ruleId):
            return .ruleDeleted(project: project, id: ruleId)
        case .changeAppended(let project, let change):
            return .changeAppended(project: project, id: change.id, body: change.json)
        case .tokenUpserted(let project, let token):
            return .tokenUpserted(project: project, token: StoredItem(id: token.token, body: token.json))
        case .tokenDeleted(let project, let token):
            return .tokenDeleted(project: project, token: token)
        case .pushRecorded(let project, let push), .pushUpdated(let project, let push):
            return .pushRecorded(project: project, id: push.id, body: push.json)
        case .ingestCounted(let project, let module, let total):
            return .ingestCounted(project: project, module: module, total: total)
        case .replaced(let snapshot):
            // The stored seed stays: a reset replays it, an import does not replace it.
            return .replaced(StoredState(seed: nil, projects: snapshot.storedProjects))
        }
    }
}

/// Events handed to ``SQLiteStateStore/enqueue(_:)``, not yet known to be durable.
public struct PendingWrite: Sendable {
    fileprivate let file: StateFile
    fileprivate let pending: GroupCommitter.Pending

    /// Returns once the events are committed; throws when the disk refused them (nothing of
    /// them is stored then).
    public func wait() throws(StateStoreError) {
        try file.wait(for: pending)
    }
}
