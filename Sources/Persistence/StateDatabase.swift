import CSQLite
import JSON
import MockServer

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
        _ sql: StaticString, _ a: Argument? = nil, _ b: Argument? = nil, _ c: Argument? = nil, _ d: Argument? = nil
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
        let last: Int
        if let lastSeq {
            last = lastSeq
        } else {
            let stmt = try statement(
                "SELECT max(m) FROM (SELECT max(seq) AS m FROM projects UNION ALL SELECT max(seq) FROM rules UNION ALL SELECT max(seq) FROM changes UNION ALL SELECT max(seq) FROM push_tokens UNION ALL SELECT max(seq) FROM token_log UNION ALL SELECT max(seq) FROM pushes UNION ALL SELECT max(seq) FROM ingest)")
            defer { stmt.reset() }
            last = try stmt.step() ? Int(stmt.int64(0)) : 0
        }
        lastSeq = last + 1
        return .integer(last + 1)
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

    /// Applies one event inside the caller's open transaction.
    func apply(_ event: StoredEvent) throws(SQLiteError) {
        switch event {
        case .projectUpserted(let key, let attributes):
            try run(
                "INSERT INTO projects (key, seq, attributes) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO UPDATE SET attributes = excluded.attributes",
                .text(key), try nextSeq(), .json(attributes))
        case .ruleUpserted(let project, let rule):
            try run(
                "INSERT INTO rules (project, id, seq, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, id) DO UPDATE SET body = excluded.body",
                .text(project), .text(rule.id), try nextSeq(), .json(rule.body))
        case .ruleDeleted(let project, let id):
            try run("DELETE FROM rules WHERE project = ?1 AND id = ?2", .text(project), .text(id))
        case .changeAppended(let project, let id, let body):
            try run(
                "INSERT INTO changes (project, id, seq, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, id) DO UPDATE SET body = excluded.body",
                .text(project), .integer(id), try nextSeq(), .json(body))
        case .tokenUpserted(let project, let token):
            try run("INSERT INTO token_log (project, token, seq, body) VALUES (?1, ?2, ?3, ?4)",
                    .text(project), .text(token.id), try nextSeq(), .json(token.body))
            loggedTokens += 1
        case .tokenRegistered(let project, let token):
            try register(token, in: project)
        case .tokenDeleted(let project, let token):
            try run("INSERT INTO token_log (project, token, seq, body) VALUES (?1, ?2, ?3, NULL)",
                    .text(project), .text(token), try nextSeq())
            loggedTokens += 1
        case .pushRecorded(let project, let id, let body):
            try run(
                "INSERT INTO pushes (project, id, seq, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, id) DO UPDATE SET body = excluded.body",
                .text(project), .integer(id), try nextSeq(), .json(body))
        case .ingestCounted(let project, let module, let total):
            try run(
                "INSERT INTO ingest (project, module, seq, count) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, module) DO UPDATE SET count = excluded.count",
                .text(project), .text(module), try nextSeq(), .integer(total))
        case .replaced(let state):
            try replaceAll(with: state)
        }
    }

    /// The record of the token being written, reused row after row.
    private var tokenBody: [UInt8] = []

    /// Rows appended to `token_log` since it was last folded (counted from the fold at open).
    private(set) var loggedTokens = 0
    /// Rows of `token_log` after which the committer's background folds it into `push_tokens`,
    /// so the log (and the next open's fold) stays bounded on a server that runs for long.
    var foldTokenLogAfter = 100_000

    /// `tokenUpserted`'s log row, with its body written as bytes and every text bound in place
    /// (no copy by SQLite), all of it living until the statement is reset.
    private func register(_ token: StateSnapshot.Token, in project: String) throws(SQLiteError) {
        let stmt = try statement("INSERT INTO token_log (project, token, seq, body) VALUES (?1, ?2, ?3, ?4)")
        let seq = try nextSeq()
        tokenBody.removeAll(keepingCapacity: true)
        token.writeJSON(into: &tokenBody)
        var project = project, id = token.token
        // withUTF8 and friends rethrow untyped errors, so the failure comes out as a value.
        let failure: SQLiteError? = project.withUTF8 { projectBytes in
            id.withUTF8 { idBytes -> SQLiteError? in
                tokenBody.withUnsafeBufferPointer { bodyBytes -> SQLiteError? in
                    do throws(SQLiteError) {
                        try stmt.bindStatic(1, projectBytes)
                        try bind(stmt, 3, seq)
                        try stmt.bindStatic(2, idBytes)
                        try stmt.bindStatic(4, bodyBytes)
                        try stmt.run()
                        return nil
                    } catch {
                        stmt.reset()
                        return error
                    }
                }
            }
        }
        if let failure { throw failure }
        loggedTokens += 1
    }

    /// A token row straight into `push_tokens` (a whole state being written, the log empty).
    private func insertToken(_ token: StoredItem, in project: String) throws(SQLiteError) {
        try run("INSERT INTO push_tokens (project, token, seq, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, token) DO UPDATE SET body = excluded.body",
                .text(project), .text(token.id), try nextSeq(), .json(token.body))
    }

    /// Applies `token_log` to `push_tokens`, oldest first, and empties it, inside the caller's
    /// transaction: a registration replaces the record of a token already there (which keeps its
    /// place) or adds it, a removal removes it.
    func foldTokenLog() throws(SQLiteError) {
        let entries = try statement("SELECT project, token, seq, body FROM token_log ORDER BY seq")
        defer { entries.reset() }
        let upsert = try statement(
            "INSERT INTO push_tokens (project, token, seq, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (project, token) DO UPDATE SET body = excluded.body")
        let remove = try statement("DELETE FROM push_tokens WHERE project = ?1 AND token = ?2")
        while try entries.step() {
            let project = Argument.text(entries.text(0) ?? ""), token = Argument.text(entries.text(1) ?? "")
            if let body = entries.text(3) {
                try bind(upsert, 1, project)
                try bind(upsert, 2, token)
                try bind(upsert, 3, .integer(Int(entries.int64(2))))
                try bind(upsert, 4, .text(body))
                try upsert.run()
            } else {
                try bind(remove, 1, project)
                try bind(remove, 2, token)
                try remove.run()
            }
        }
        try run("DELETE FROM token_log")
        loggedTokens = 0
    }

    private func replaceAll(with state: StoredState) throws(SQLiteError) {
        try run("DELETE FROM projects")
        try run("DELETE FROM rules")
        try run("DELETE FROM changes")
        try run("DELETE FROM push_tokens")
        try run("DELETE FROM token_log")
        loggedTokens = 0
        try run("DELETE FROM pushes")
        try run("DELETE FROM ingest")
        if let seed = state.seed {
            try run("INSERT INTO meta (key, value) VALUES ('seed', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", .json(seed))
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
        // The folded tokens, then the log on top (it is empty unless the file is read-only).
        var tokens: [String: TokenList] = [:]
        try rows("SELECT project, token, body FROM push_tokens ORDER BY seq") { stmt in
            let key = stmt.text(0) ?? ""
            let token = stmt.text(1) ?? ""
            touch(key)
            let body = try parse(stmt.text(2), "push token \(token) of project \(key)")
            tokens[key, default: TokenList()].upsert(StoredItem(id: token, body: body))
        }
        try rows("SELECT project, token, body FROM token_log ORDER BY seq") { stmt in
            let key = stmt.text(0) ?? ""
            let token = stmt.text(1) ?? ""
            guard let text = stmt.text(2) else {
                tokens[key]?.remove(token)
                return
            }
            touch(key)
            let body = try parse(text, "push token \(token) of project \(key)")
            tokens[key, default: TokenList()].upsert(StoredItem(id: token, body: body))
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
