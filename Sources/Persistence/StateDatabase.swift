import CSQLite
import JSON
import MockServer
import ReleaseControl

/// The state file's tables, seen through one connection: applies `StateEvent`s and reads
/// everything back.
///
/// `@unchecked Sendable` because it is confined, not locked here: the opener uses it until it
/// hands it to a `GroupCommitter`, and from then on only the holder of that committer's lock
/// touches it.
final class StateDatabase: @unchecked Sendable {
    let connection: SQLiteConnection

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    var path: String { connection.path }

    /// A cached prepared statement for `sql`, reset and ready to bind. Keyed by the static
    /// string's address: the write path looks statements up without hashing text.
    private func statement(_ sql: StaticString) throws(SQLiteError) -> SQLiteStatement {
        let key = Int(bitPattern: sql.utf8Start)
        if let cached = statements[key] { return cached }
        let prepared = try connection.prepare(sql.description, persistent: true)
        statements[key] = prepared
        return prepared
    }

    private var statements: [Int: SQLiteStatement] = [:]

    private enum Argument {
        case text(String)
        case integer(Int)
        case json(JSON)
    }

    /// Runs `sql` with up to four arguments bound in order, for statements without rows.
    private func run(
        _ sql: StaticString,
        _ a: Argument? = nil,
        _ b: Argument? = nil,
        _ c: Argument? = nil,
        _ d: Argument? = nil
    ) throws(SQLiteError) {
        let stmt = try statement(sql)
        try bind(stmt, 1, a)
        try bind(stmt, 2, b)
        try bind(stmt, 3, c)
        try bind(stmt, 4, d)
        try stmt.run()
    }

    /// The last `seq` handed out; read from the file on first use.
    private var lastSeq: Int?

    /// The next position in write order (shared by every table; gaps after a rollback are fine).
    private func nextSeq() throws(SQLiteError) -> Argument {
        .integer(try nextSeqNumber())
    }

    private func nextSeqNumber() throws(SQLiteError) -> Int {
        let last: Int
        if let lastSeq {
            last = lastSeq
        } else {
            let stmt = try statement(
                "SELECT max(m) FROM (SELECT max(seq) AS m FROM projects UNION ALL SELECT max(seq) FROM rules UNION ALL SELECT max(seq) FROM changes UNION ALL SELECT max(seq) FROM push_tokens UNION ALL SELECT max(seq) FROM token_log UNION ALL SELECT max(seq) FROM pushes UNION ALL SELECT max(seq) FROM ingest)"
            )
            defer { stmt.reset() }
            last = try stmt.step() ? Int(stmt.int64(0)) : 0
        }
        lastSeq = last + 1
        return last + 1
    }

    private func bind(_ stmt: SQLiteStatement, _ index: Int32, _ argument: Argument?) throws(SQLiteError) {
        switch argument {
        case .text(let text)?: try stmt.bind(index, text)
        case .integer(let value)?: try stmt.bind(index, value)
        case .json(let json)?: try stmt.bind(index, json.serializedString)
        case nil: break
        }
    }

    // MARK: writing

    /// Runs `body`, which applies events (``apply(_:)``), in one transaction. The token
    /// registrations and removals among them are written as one `token_log` row at the end:
    /// one row per commit group, not one per registration.
    func transaction(_ body: () throws(SQLiteError) -> Void, context: @autoclosure () -> String) throws(SQLiteError) {
        try connection.transaction(
            { () throws(SQLiteError) in
                // Whatever a refused transaction left in the row being built rolled back with it.
                discardTokenGroup()
                try body()
                try writeTokenGroup()
            },
            context: context()
        )
    }

    /// Applies one event inside ``transaction(_:context:)``. A token registration or removal is
    /// added to the transaction's `token_log` row; any other event first writes that row, so
    /// the file sees every event in order (a reset after a registration empties the log).
    func apply(_ event: StoredEvent) throws(SQLiteError) {
        switch event {
        case .tokenRegistered(let project, let token):
            return try log(project: project, token: token.token) { token.writeJSON(into: &$0) }
        case .tokenUpserted(let project, let token):
            return try log(project: project, token: token.id) { token.body.write(into: &$0) }
        case .tokenDeleted(let project, let token):
            return try log(project: project, token: token, removal: true) { TokenLogRow.append("null", to: &$0) }
        default:
            try writeTokenGroup()
        }
        switch event {
        case .projectUpserted(let key, let attributes):
            try run(
                "INSERT INTO projects (key, seq, attributes) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO UPDATE SET attributes = excluded.attributes",
                .text(key),
                try nextSeq(),
                .json(attributes)
            )
        case .ruleUpserted(let project, let rule):
            try run(
                "INSERT INTO rules (project, id, seq, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, id) DO UPDATE SET body = excluded.body",
                .text(project),
                .text(rule.id),
                try nextSeq(),
                .json(rule.body)
            )
        case .ruleDeleted(let project, let id):
            try run("DELETE FROM rules WHERE project = ?1 AND id = ?2", .text(project), .text(id))
        case .changeAppended(let project, let id, let body):
            try run(
                "INSERT INTO changes (project, id, seq, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, id) DO UPDATE SET body = excluded.body",
                .text(project),
                .integer(id),
                try nextSeq(),
                .json(body)
            )
        case .tokenRegistered, .tokenUpserted, .tokenDeleted:
            break  // added to the log row above
        case .pushRecorded(let project, let id, let body):
            try run(
                "INSERT INTO pushes (project, id, seq, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, id) DO UPDATE SET body = excluded.body",
                .text(project),
                .integer(id),
                try nextSeq(),
                .json(body)
            )
        case .ingestCounted(let project, let module, let total):
            try run(
                "INSERT INTO ingest (project, module, seq, count) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, module) DO UPDATE SET count = excluded.count",
                .text(project),
                .text(module),
                try nextSeq(),
                .integer(total)
            )
        case .replaced(let state):
            try replaceAll(with: state)
        }
    }

    /// The transaction's `token_log` row being built, reused transaction after transaction.
    private var logRow = TokenLogRow()

    /// Registrations and removals appended to `token_log` since it was last folded (counted
    /// from the fold at open), or since the running fold began (``foldingThrough``): what the
    /// next fold would take.
    private(set) var loggedTokens = 0
    /// Among those, the entries a later one made dead weight: an older registration of a token
    /// registered again, a removal and the registration it removed. An estimate that only
    /// decides when to fold: tokens are remembered in a fixed table (``recentTokenKeys``), so one
    /// pushed out by another before it comes again is not seen as dead, and an entry counts once
    /// logged even if its commit then failed.
    private(set) var deadTokenEntries = 0
    /// The tokens (with their project) logged since, by 64-bit hash, one slot per hash's low
    /// bits: 512 KB whatever the log holds (a set of every token logged would grow with a log of
    /// live tokens, which is never folded while the server runs). 0 is an empty slot.
    private var recentTokenKeys = [UInt64](repeating: 0, count: 1 << 16)
    /// Set while a fold runs, a few rows per transaction (``foldTokenLogStep()``): the newest
    /// log row it takes.
    private(set) var foldingThrough: Int?
    /// Entries past which a log that is at least half dead weight is folded into `push_tokens`
    /// in the background. A log of live entries is not folded while the server runs: it holds
    /// the tokens as compactly as `push_tokens` would, and folding it would cost every
    /// registration a second insert (into `push_tokens`' b-tree, about 4.5 us each, more than a
    /// fifth of a registration's cost) for no space saved. The next open folds whatever is left.
    var foldTokenLogAfter = 100_000
    /// Log rows one step of a background fold takes: a short transaction, so the writers that
    /// queue behind it wait a few milliseconds, not the whole fold (about 450 ms per 100,000 entries).
    var foldRowsPerStep = 16

    /// True when the log is due for a background fold, or one is under way.
    var foldIsDue: Bool {
        foldingThrough != nil || (loggedTokens >= foldTokenLogAfter && deadTokenEntries * 2 >= loggedTokens)
    }

    /// Adds a registration or a removal to the transaction's log row (`record` appends its
    /// record's JSON, `null` for a removal), and counts it for the fold.
    private func log(
        project: String,
        token: String,
        removal: Bool = false,
        record: (inout [UInt8]) -> Void
    ) throws(SQLiteError) {
        logRow.add(project: project, token: token, seq: try nextSeqNumber(), writeRecord: record)
        noteLogged(project: project, token: token, removal: removal)
    }

    private func noteLogged(project: String, token: String, removal: Bool) {
        let key = Self.tokenKey(project: project, token: token)
        let slot = Int(truncatingIfNeeded: key) & (recentTokenKeys.count - 1)
        let seen = recentTokenKeys[slot] == key
        if removal {
            deadTokenEntries += seen ? 2 : 1
            if seen { recentTokenKeys[slot] = 0 }
        } else if seen {
            deadTokenEntries += 1
        } else {
            recentTokenKeys[slot] = key
        }
    }

    /// FNV-1a over the project's and the token's UTF-8 with a 0xFF between (never in UTF-8), mixed,
    /// never 0: the same in every process, so what ``deadTokenEntries`` counts does not vary by run.
    static func tokenKey(project: String, token: String) -> UInt64 {
        var hash = FNV1a64.hash(project.utf8)
        hash = FNV1a64.hash(CollectionOfOne(0xFF), continuing: hash)
        hash = FNV1a64.hash(token.utf8, continuing: hash)
        // FNV's low bits (the slot) barely change between "device-1" and "device-2": mixed as
        // MurmurHash3's finalizer mixes.
        hash = (hash ^ (hash >> 33)) &* 0xff51_afd7_ed55_8ccd
        hash = (hash ^ (hash >> 33)) &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return hash == 0 ? 1 : hash
    }

    /// The log counts start over: nothing is logged since (a fold began or ended, a replace).
    private func resetLogCounts() {
        loggedTokens = 0
        deadTokenEntries = 0
        recentTokenKeys.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    private func discardTokenGroup() {
        logRow.removeAll()
    }

    /// Appends the row being built to `token_log`, its bytes bound in place (no copy by SQLite);
    /// nothing when the transaction registered and removed nothing (since the last row).
    private func writeTokenGroup() throws(SQLiteError) {
        guard logRow.count > 0 else { return }
        defer { logRow.removeAll() }
        let stmt = try statement("INSERT INTO token_log (seq, entries) VALUES (?1, ?2)")
        try stmt.bind(1, logRow.lastSeq)
        // The bytes are valid only inside the call, so the statement runs there and its failure
        // comes out as a value.
        let failure: SQLiteError? = logRow.withClosedArray { bytes -> SQLiteError? in
            do throws(SQLiteError) {
                try stmt.bindStatic(2, bytes)
                try stmt.run()
                return nil
            } catch {
                stmt.reset()
                return error
            }
        }
        if let failure { throw failure }
        loggedTokens += logRow.count
    }

    /// A token row straight into `push_tokens` (a whole state being written, the log empty).
    private func insertToken(_ token: StoredItem, in project: String) throws(SQLiteError) {
        try run(
            "INSERT INTO push_tokens (project, token, seq, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, token) DO UPDATE SET body = excluded.body",
            .text(project),
            .text(token.id),
            try nextSeq(),
            .json(token.body)
        )
    }

    /// One registration (its record's JSON text) or removal (none) read back from `token_log`.
    private struct LogEntry {
        var project: String
        var token: String
        var seq: Int
        var record: String?
    }

    /// Each entry of `token_log` (schema version 3 on), oldest first. SQLite's json_each takes
    /// the rows apart (the fold at 100,000 entries runs in C, without building JSON values);
    /// project and token come out as JSON text (`->`) and are read by our parser, since SQLite's
    /// text values (`->>`) would end at a NUL, and stored identifiers keep theirs.
    private func forEachLogEntry(
        through last: Int = Int.max,
        _ each: (LogEntry) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        let rows = try statement(
            "SELECT token_log.seq, entry.value -> '$.project', entry.value -> '$.token', entry.value ->> '$.seq', entry.value -> '$.record' FROM token_log, json_each(token_log.entries) AS entry WHERE token_log.seq <= ?1 ORDER BY token_log.seq, entry.key"
        )
        defer { rows.reset() }
        try rows.bind(1, last)
        func damaged(_ message: String) -> SQLiteError {
            SQLiteError(code: SQLITE_CORRUPT, message: message, context: "reading the token log")
        }
        func next() throws(SQLiteError) -> Bool {
            do throws(SQLiteError) {
                return try rows.step()
            } catch  where error.primaryCode == SQLITE_ERROR {
                throw damaged("token_log: \(error.message)")  // json_each's "malformed JSON"
            }
        }
        while try next() {
            guard let project = Self.jsonString(rows.text(1)), let token = Self.jsonString(rows.text(2)),
                rows.text(3) != nil, let record = rows.text(4)
            else {
                throw damaged("token_log row \(rows.int64(0)) holds an entry without project, token, seq or record")
            }
            try each(
                LogEntry(
                    project: project,
                    token: token,
                    seq: Int(rows.int64(3)),
                    record: record == "null" ? nil : record
                )
            )
        }
    }

    /// The string a JSON string literal holds; nil for anything else.
    private static func jsonString(_ text: String?) -> String? {
        guard let text, case .string(let value)? = try? JSON.parse(text) else { return nil }
        return value
    }

    /// Applies `token_log` to `push_tokens`, oldest first, and empties it, inside the caller's
    /// transaction: a registration replaces the record of a token already there (which keeps its
    /// place) or adds it, a removal removes it. Ends a fold under way.
    func foldTokenLog() throws(SQLiteError) {
        try foldTokenLog(through: Int.max)
        foldingThrough = nil
        resetLogCounts()
    }

    /// One step of a background fold, in a transaction of its own: the oldest
    /// ``foldRowsPerStep`` log rows of those there when the fold began. Returns true once the
    /// fold is done. A failed step changes nothing and the fold stays due (``foldIsDue``).
    func foldTokenLogStep() throws(SQLiteError) -> Bool {
        let last: Int
        if let foldingThrough {
            last = foldingThrough
        } else {
            let newest = try statement("SELECT max(seq) FROM token_log")
            defer { newest.reset() }
            guard try newest.step(), !newest.isNull(0) else {
                resetLogCounts()
                return true
            }
            last = Int(newest.int64(0))
            foldingThrough = last
            // What is logged from here on is counted for the next fold.
            resetLogCounts()
        }
        let stepEnd: Int
        do {
            let ending = try statement("SELECT seq FROM token_log WHERE seq <= ?1 ORDER BY seq LIMIT 1 OFFSET ?2")
            defer { ending.reset() }
            try ending.bind(1, last)
            try ending.bind(2, max(foldRowsPerStep, 1) - 1)
            stepEnd = try ending.step() ? Int(ending.int64(0)) : last
        }
        try connection.transaction(
            { () throws(SQLiteError) in try foldTokenLog(through: stepEnd) },
            context: "folding the token log"
        )
        guard stepEnd >= last else { return false }
        foldingThrough = nil
        return true
    }

    /// Applies the log rows up to seq `last` and removes them, inside the caller's transaction.
    private func foldTokenLog(through last: Int) throws(SQLiteError) {
        let upsert = try statement(
            "INSERT INTO push_tokens (project, token, seq, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, token) DO UPDATE SET body = excluded.body"
        )
        let remove = try statement("DELETE FROM push_tokens WHERE project = ?1 AND token = ?2")
        try forEachLogEntry(through: last) { entry throws(SQLiteError) in
            if let record = entry.record {
                try bind(upsert, 1, .text(entry.project))
                try bind(upsert, 2, .text(entry.token))
                try bind(upsert, 3, .integer(entry.seq))
                try bind(upsert, 4, .text(record))
                try upsert.run()
            } else {
                try bind(remove, 1, .text(entry.project))
                try bind(remove, 2, .text(entry.token))
                try remove.run()
            }
        }
        try run("DELETE FROM token_log WHERE seq <= ?1", .integer(last))
    }

    private func replaceAll(with state: StoredState) throws(SQLiteError) {
        try run("DELETE FROM projects")
        try run("DELETE FROM rules")
        try run("DELETE FROM changes")
        try run("DELETE FROM push_tokens")
        try run("DELETE FROM token_log")
        foldingThrough = nil
        resetLogCounts()
        try run("DELETE FROM pushes")
        try run("DELETE FROM ingest")
        if let seed = state.seed {
            try run(
                "INSERT INTO meta (key, value) VALUES ('seed', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                .json(seed)
            )
        }
        for project in state.projects {
            try apply(.projectUpserted(key: project.key, attributes: project.attributes))
            for rule in project.rules {
                try apply(.ruleUpserted(project: project.key, rule: rule))
            }
            for change in project.changes {
                try apply(.changeAppended(project: project.key, id: change.id, body: change.body))
            }
            for token in project.pushTokens {
                try insertToken(token, in: project.key)
            }
            for push in project.pushes {
                try apply(.pushRecorded(project: project.key, id: push.id, body: push.body))
            }
            for count in project.ingest {
                try apply(.ingestCounted(project: project.key, module: count.module, total: count.count))
            }
        }
    }

    // MARK: reading

    /// Reads the whole state. A body that no longer parses as JSON is reported as corruption.
    func load() throws(StateFileError) -> StoredState {
        do {
            return try loadUnchecked()
        } catch let error as StateFileError {
            throw error
        } catch let error as SQLiteError {
            throw StateFileError.corrupt(path: path, detail: error.description)
        } catch {
            throw StateFileError.corrupt(path: path, detail: "\(error)")
        }
    }

    private func loadUnchecked() throws -> StoredState {
        var order: [String] = []
        var projects: [String: StoredProject] = [:]
        func touch(_ key: String) {
            if projects[key] == nil {
                projects[key] = StoredProject(key: key)
                order.append(key)
            }
        }
        func parse(_ text: String?, _ what: String) throws -> JSON {
            do {
                return try JSON.parse(text ?? "")
            } catch {
                throw StateFileError.corrupt(path: path, detail: "\(what) is not JSON: \(error)")
            }
        }

        try rows("SELECT key, attributes FROM projects ORDER BY seq") { stmt in
            let key = stmt.text(0) ?? ""
            touch(key)
            projects[key]?.attributes = try parse(stmt.text(1), "the attributes of project \(key)")
        }
        try rows("SELECT project, id, body FROM rules ORDER BY seq") { stmt in
            let key = stmt.text(0) ?? ""
            let id = stmt.text(1) ?? ""
            touch(key)
            let body = try parse(stmt.text(2), "rule \(id) of project \(key)")
            projects[key]?.rules.append(StoredItem(id: id, body: body))
        }
        try rows("SELECT project, id, body FROM changes ORDER BY project, id") { stmt in
            let key = stmt.text(0) ?? ""
            let id = Int(stmt.int64(1))
            touch(key)
            let body = try parse(stmt.text(2), "change \(id) of project \(key)")
            projects[key]?.changes.append(StoredRecord(id: id, body: body))
        }
        // The folded tokens, then the log on top (what was written since the file was opened).
        var tokens: [String: TokenList] = [:]
        try rows("SELECT project, token, body FROM push_tokens ORDER BY seq") { stmt in
            let key = stmt.text(0) ?? ""
            let token = stmt.text(1) ?? ""
            touch(key)
            let body = try parse(stmt.text(2), "push token \(token) of project \(key)")
            tokens[key, default: TokenList()].upsert(StoredItem(id: token, body: body))
        }
        func add(_ entry: LogEntry) throws {
            guard let record = entry.record else {
                tokens[entry.project]?.remove(entry.token)
                return
            }
            touch(entry.project)
            tokens[entry.project, default: TokenList()].upsert(
                StoredItem(
                    id: entry.token,
                    body: try parse(record, "push token \(entry.token) of project \(entry.project)")
                )
            )
        }
        // A writable file was migrated to the current version at open; a read-only one is read
        // in the layout it has (version 1 has no log; version 2 has a row per entry).
        let version = try connection.pragmaInteger("user_version")
        if version >= 3 {
            var failure: (any Error)?
            try forEachLogEntry { entry throws(SQLiteError) in
                do { try add(entry) } catch { failure = failure ?? error }
            }
            if let failure { throw failure }
        } else if version == 2 {
            try rows("SELECT project, token, seq, body FROM token_log ORDER BY seq") { stmt in
                let key = stmt.text(0) ?? ""
                let token = stmt.text(1) ?? ""
                try add(LogEntry(project: key, token: token, seq: Int(stmt.int64(2)), record: stmt.text(3)))
            }
        }
        for (key, list) in tokens { projects[key]?.pushTokens = list.items }
        try rows("SELECT project, id, body FROM pushes ORDER BY project, id") { stmt in
            let key = stmt.text(0) ?? ""
            let id = Int(stmt.int64(1))
            touch(key)
            let body = try parse(stmt.text(2), "push \(id) of project \(key)")
            projects[key]?.pushes.append(StoredRecord(id: id, body: body))
        }
        try rows("SELECT project, module, count FROM ingest ORDER BY seq") { stmt in
            let key = stmt.text(0) ?? ""
            touch(key)
            projects[key]?.ingest.append(StoredIngestCount(module: stmt.text(1) ?? "", count: Int(stmt.int64(2))))
        }
        var seed: JSON?
        try rows("SELECT value FROM meta WHERE key = 'seed'") { stmt in
            seed = try parse(stmt.text(0), "the stored seed")
        }
        return StoredState(seed: seed, projects: order.compactMap { projects[$0] })
    }

    private func rows(_ sql: StaticString, _ each: (SQLiteStatement) throws -> Void) throws {
        let stmt = try statement(sql)
        defer { stmt.reset() }
        while try stmt.step() {
            try each(stmt)
        }
    }
}

/// One `token_log` row in the making: a JSON array of one object per registration or removal,
/// `{"project":…,"token":…,"seq":N,"record":…}`, `record` null for a removal, written as bytes.
private struct TokenLogRow {
    /// The array's text so far, without its closing bracket.
    private var bytes: [UInt8] = []
    /// Entries so far, and the seq of the newest: the row's own seq, so `max(seq)` over the
    /// tables stays the newest seq handed out.
    private(set) var count = 0
    private(set) var lastSeq = 0

    /// `{"project":"…","token":` for the project of the latest entry: a row's entries are
    /// mostly of one project, so its name is escaped once, not once per entry.
    private var projectPrefix: [UInt8] = []
    private var prefixProject: String?

    /// Adds an entry; `writeRecord` appends its record's JSON.
    mutating func add(project: String, token: String, seq: Int, writeRecord: (inout [UInt8]) -> Void) {
        if prefixProject != project {
            projectPrefix.removeAll(keepingCapacity: true)
            Self.append(#"{"project":"#, to: &projectPrefix)
            JSON.writeString(project, into: &projectPrefix)
            Self.append(#","token":"#, to: &projectPrefix)
            prefixProject = project
        }
        bytes.append(UInt8(ascii: count == 0 ? "[" : ","))
        bytes.append(contentsOf: projectPrefix)
        JSON.writeString(token, into: &bytes)
        Self.append(#","seq":"#, to: &bytes)
        Self.appendDigits(seq, to: &bytes)
        Self.append(#","record":"#, to: &bytes)
        writeRecord(&bytes)
        bytes.append(UInt8(ascii: "}"))
        count += 1
        lastSeq = seq
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        count = 0
    }

    /// Runs `body` on the finished array's bytes (the bracket closed for the call).
    mutating func withClosedArray<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        bytes.append(UInt8(ascii: "]"))
        defer { bytes.removeLast() }
        return bytes.withUnsafeBufferPointer(body)
    }

    /// A literal's bytes in one copy.
    static func append(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// A non-negative integer's decimal digits, built on the stack (no String made).
    static func appendDigits(_ value: Int, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value.magnitude
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}

/// One project's tokens in registration order while the file is read: a token registered again
/// keeps its place with the new record, one removed and registered again goes last.
private struct TokenList {
    private var slots: [StoredItem?] = []
    private var index: [String: Int] = [:]

    mutating func upsert(_ item: StoredItem) {
        if let at = index[item.id] {
            slots[at] = item
        } else {
            index[item.id] = slots.count
            slots.append(item)
        }
    }

    mutating func remove(_ token: String) {
        guard let at = index.removeValue(forKey: token) else { return }
        slots[at] = nil
    }

    var items: [StoredItem] { slots.compactMap { $0 } }
}
