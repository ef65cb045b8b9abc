import Clock
import ReleaseControl

/// One project as the server holds it: the domain state plus tokens, pushes, ingest counts
/// (all durable), and the volatile parts (faults, push throttle, timer, answer cache).
struct ProjectRuntime: Sendable {
    var state: ProjectState
    /// Tokens by value, with an arrival sequence number so listings keep registration order.
    var tokens: [String: (token: StateSnapshot.Token, sequence: Int)] = [:]
    var nextTokenSequence = 0
    /// The tokens as a push's targets, in registration order, kept up as tokens arrive so a
    /// blocking change does not sort 100,000 tokens; nil after a removal or a platform change
    /// (the next push sorts once and stores it back).
    var pushTargets: [PushTarget]? = []
    var pushes: [PushRecord] = []
    var ingest: [String: Int] = [:]

    var faults: [Fault] = []
    var throttle = PushThrottle()
    var timer: (any Cancellable)?
    /// Answers per device class (as sent, so a hit parses no version), for ``stamp``.
    var cache = AnswerCache()
    /// Changes on every mutation that can change an answer; cached answers are only stored for
    /// the stamp they were evaluated at, so a late evaluation never caches a stale answer.
    var stamp: UInt64

    init(_ project: StateSnapshot.Project, stamp: UInt64) {
        state = ProjectState(
            key: project.key,
            apnsTopic: project.apnsTopic,
            fcmProject: project.fcmProject,
            rules: project.rules,
            changes: project.changes
        )
        pushes = project.pushes
        ingest = project.ingest
        self.stamp = stamp
        for token in project.pushTokens { upsert(token) }
    }

    var key: String { state.key }

    mutating func upsert(_ token: StateSnapshot.Token) {
        // One hash for a new token (the common case: a device's first launch); a token already
        // held is written again with the sequence it arrived with.
        if let existing = tokens.updateValue((token, nextTokenSequence), forKey: token.token) {
            tokens[token.token] = (token, existing.sequence)
            if existing.token.platform != token.platform { pushTargets = nil }
        } else {
            nextTokenSequence += 1
            pushTargets?.append(PushTarget(token: token.token, platform: token.platform))
        }
    }

    mutating func removeToken(_ token: String) {
        guard tokens.removeValue(forKey: token) != nil else { return }
        pushTargets = nil
    }

    /// Tokens in registration order.
    var orderedTokens: [StateSnapshot.Token] {
        tokens.values.sorted { $0.sequence < $1.sequence }.map(\.token)
    }

    /// Snapshots keep push ids increasing (``IncreasingIDs``), so the last is the highest.
    var nextPushId: Int { (pushes.last?.id ?? 0) + 1 }

    var snapshot: StateSnapshot.Project {
        StateSnapshot.Project(
            key: state.key,
            apnsTopic: state.apnsTopic,
            fcmProject: state.fcmProject,
            rules: state.rules,
            changes: state.changes,
            pushTokens: orderedTokens,
            pushes: pushes,
            ingest: ingest
        )
    }
}

/// Everything behind the server's one state lock.
struct ServerState: Sendable {
    /// The projects by key. Every write through it moves ``shape``, which a check's memoised
    /// place of its project must match: a write may have moved the project (an insert can grow
    /// the table) or removed it.
    var projects: [String: ProjectRuntime] {
        get { table }
        _modify {
            shape &+= 1
            yield &table
        }
        set {
            shape &+= 1
            table = newValue
        }
    }
    /// The storage of ``projects``: written only through it, or in place by ``updateProject(_:_:)``.
    private var table: [String: ProjectRuntime] = [:]
    private var shape: UInt64 = 0
    /// Where the last check found its project: checks come in long runs of one project, and
    /// hashing its key was a tenth of a served check (~290 instructions).
    private var lastChecked: CheckedProject?

    /// A struct, not a tuple: Swift copies tuples through a generic path, and this is read per check.
    private struct CheckedProject {
        let key: String
        let index: Dictionary<String, ProjectRuntime>.Index
        let shape: UInt64
    }
    /// Project keys in creation order, for listings.
    var order: [String] = []
    var journal: RequestJournal
    var nextStamp: UInt64 = 1
    /// Bumps whenever everything is replaced (reset, import), so delivery results that arrive
    /// late for a push of the old state never land on a new push with the same id.
    var generation: UInt64 = 0
    /// The last server time formatted for an answer: checks arriving in the same millisecond
    /// (a fleet in virtual time, a busy server) share the text instead of formatting it again.
    private var formattedTime: (at: Instant, text: String)?

    init(journalCapacity: Int) {
        journal = RequestJournal(capacity: journalCapacity)
    }

    /// `body` on project `key` in place (nil when there is no such project), its place in the
    /// table found once per run of checks of one project while no write comes between: every
    /// check, and the writes and reads that change or read one project's contents. A write
    /// through `projects[key]?` moves the shape and so drops the remembered place; changing a
    /// project's contents moves no project in the table, so this keeps it.
    mutating func updateProject<Result>(_ key: String, _ body: (inout ProjectRuntime) -> Result) -> Result? {
        let index: Dictionary<String, ProjectRuntime>.Index
        if let last = lastChecked, last.shape == shape, last.key == key {
            index = last.index
        } else {
            guard let found = table.index(forKey: key) else { return nil }
            index = found
            lastChecked = CheckedProject(key: key, index: found, shape: shape)
        }
        // In place: through `values[index]`'s getter every read would copy the whole project.
        return body(&table.values[index])
    }

    /// Whether project `key` exists. `projects[key] != nil` copies the whole project out of the
    /// table first (a retain and release of each of its buffers, ~830 instructions).
    func hasProject(_ key: String) -> Bool { table.index(forKey: key) != nil }

    /// `now` as RFC 3339 text, formatted once per millisecond.
    mutating func serverTimeText(_ now: Instant) -> String {
        if let formatted = formattedTime, formatted.at == now { return formatted.text }
        let text = now.rfc3339
        formattedTime = (now, text)
        return text
    }

    mutating func takeStamp() -> UInt64 {
        nextStamp += 1
        return nextStamp
    }

    /// Replaces every project with `snapshot`'s, cancelling push timers; the journal is kept
    /// (callers clear it when they mean to).
    mutating func load(_ snapshot: StateSnapshot) {
        _ = install(Self.build(snapshot))
    }

    /// Projects built from a snapshot away from the lock (100,000 seeded tokens take a while).
    /// Their stamps are placeholders; ``install(_:)`` gives them fresh ones.
    static func build(_ snapshot: StateSnapshot) -> (projects: [String: ProjectRuntime], order: [String]) {
        var projects: [String: ProjectRuntime] = [:]
        projects.reserveCapacity(snapshot.projects.count)
        for project in snapshot.projects { projects[project.key] = ProjectRuntime(project, stamp: 0) }
        return (projects, snapshot.projects.map(\.key))
    }

    /// Swaps in built projects and returns the old ones, so the caller can let them go after
    /// releasing the lock instead of freeing a large state inside it.
    mutating func install(_ built: (projects: [String: ProjectRuntime], order: [String])) -> [String: ProjectRuntime] {
        for project in projects.values { project.timer?.cancel() }
        generation += 1
        var old = built.projects
        swap(&old, &projects)
        order = built.order
        for key in order {
            let stamp = takeStamp()
            projects[key]?.stamp = stamp
        }
        return old
    }

    /// ``install(_:)`` for the stored state after a refused write: the projects' armed faults
    /// (never stored) stay.
    mutating func restore(_ built: (projects: [String: ProjectRuntime], order: [String])) -> [String: ProjectRuntime] {
        var built = built
        for (key, runtime) in projects where !runtime.faults.isEmpty { built.projects[key]?.faults = runtime.faults }
        return install(built)
    }

    var snapshot: StateSnapshot {
        StateSnapshot(projects: order.compactMap { projects[$0]?.snapshot })
    }
}
