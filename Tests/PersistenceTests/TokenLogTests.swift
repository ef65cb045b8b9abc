import CSQLite
import JSON
import MockServer
import Testing

@testable import Persistence

/// Token registrations and removals are appended to `token_log`, one row per commit (a JSON array
/// of the commit's entries), and folded into `push_tokens` at open (and in the background, a few
/// rows at a time, once the log is large and at least half dead weight); what reads back is what the upserts and deletes of schema version 1 gave:
/// a token registered again keeps its place with the new record, one removed and registered again
/// goes last.
@Suite struct TokenLogTests {
    static func tokens(_ state: StoredState) -> [String] {
        state.projects.first?.pushTokens.map(\.id) ?? []
    }

    static func platforms(_ state: StoredState) -> [String] {
        state.projects.first?.pushTokens.map { $0.body["platform"]?.stringValue ?? "?" } ?? []
    }

    /// Rows in `token_log` now.
    static func logRows(_ file: StateFile) -> Int? {
        file.readForTesting { database in
            guard let stmt = try? database.connection.prepare("SELECT count(*) FROM token_log"),
                (try? stmt.step()) == true
            else { return -1 }
            return Int(stmt.int64(0))
        }
    }

    /// Each `token_log` row's `entries` text, oldest first.
    static func logTexts(_ connection: SQLiteConnection) throws -> [String] {
        let stmt = try connection.prepare("SELECT entries FROM token_log ORDER BY seq")
        var texts: [String] = []
        while try stmt.step() { texts.append(stmt.text(0) ?? "") }
        return texts
    }

    static func logTexts(_ file: StateFile) -> [String] {
        file.readForTesting { (try? logTexts($0.connection)) ?? ["unreadable"] } ?? []
    }

    static let writes: [StoredEvent] = [
        .tokenUpserted(project: "demo", token: Fixtures.token("a")),
        .tokenUpserted(project: "demo", token: Fixtures.token("b")),
        .tokenDeleted(project: "demo", token: "a"),
        .tokenUpserted(project: "demo", token: Fixtures.token("c")),
        .tokenUpserted(project: "demo", token: Fixtures.token("a")),
        .tokenUpserted(project: "demo", token: Fixtures.token("b", platform: "android")),
        .tokenDeleted(project: "demo", token: "never-registered"),
    ]

    @Test func theLogReadsBackAsUpsertsAndDeletesBeforeAndAfterTheFold() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("log.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        for event in Self.writes { try file.write([event]) }
        #expect(Self.logRows(file) == Self.writes.count, "one row per commit")
        // Read while still in the log (the recovery after a refused write reads this way).
        let live = try file.loadSnapshot()
        #expect(Self.tokens(live) == ["b", "c", "a"])
        #expect(Self.platforms(live) == ["android", "ios", "ios"])
        file.close()
        // Opening folds the log into push_tokens and empties it; the same state reads back.
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(Self.logRows(reopened) == 0)
        #expect(Self.tokens(reopened.initialState) == ["b", "c", "a"])
        #expect(Self.platforms(reopened.initialState) == ["android", "ios", "ios"])
        // Folded rows and new log rows combine the same way.
        try reopened.write([
            .tokenUpserted(project: "demo", token: Fixtures.token("c", platform: "android")),
            .tokenDeleted(project: "demo", token: "b"),
        ])
        #expect(Self.logRows(reopened) == 1, "one commit, one row")
        let combined = try reopened.loadSnapshot()
        #expect(Self.tokens(combined) == ["c", "a"])
        #expect(Self.platforms(combined) == ["android", "ios"])
    }

    @Test func aCommitGroupIsOneRowOfReadableJSONInOrder() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("group.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { file.close() }
        let registered = StateSnapshot.Token(token: "r", platform: .android)
        try file.write([
            .tokenRegistered(project: "demo", token: registered),
            .tokenUpserted(project: "demo", token: Fixtures.token("u")),
            .tokenDeleted(project: "demo", token: "r"),
        ])
        let texts = Self.logTexts(file)
        #expect(texts.count == 1)
        let entries = try #require(try JSON.parse(texts.first ?? "").arrayValue)
        #expect(entries.map { $0["token"]?.stringValue } == ["r", "u", "r"])
        #expect(entries.allSatisfy { $0["project"]?.stringValue == "demo" })
        #expect(entries[0]["record"] == registered.json)
        #expect(entries[1]["record"] == Fixtures.token("u").body)
        #expect(entries[2]["record"] == .null, "a removal has a null record")
        let seqs = entries.compactMap { $0["seq"]?.intValue }
        #expect(seqs.count == 3 && seqs == seqs.sorted() && Set(seqs).count == 3)
        #expect(Self.tokens(try file.loadSnapshot()) == ["u"])
    }

    /// Each entry names its own project, whichever project the entry before it had (the row
    /// writes a project's name once and reuses it while the next entries share it).
    @Test func entriesOfSeveralProjectsInOneRowKeepTheirOwnProject() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("projects.db")
        let seed = StoredState(
            seed: nil,
            projects: [StoredProject(key: "demo"), StoredProject(key: "other \"quoted\"")]
        )
        let file = try StateFile.open(path: path, seed: seed)
        let projects = ["demo", "demo", "other \"quoted\"", "demo", "other \"quoted\""]
        try file.write(projects.enumerated().map { .tokenUpserted(project: $1, token: Fixtures.token("t\($0)")) })
        try file.write([.tokenUpserted(project: "other \"quoted\"", token: Fixtures.token("next"))])
        let texts = Self.logTexts(file)
        #expect(texts.count == 2)
        let entries = try texts.flatMap { try #require(try JSON.parse($0).arrayValue) }
        #expect(entries.map { $0["project"]?.stringValue } == projects + ["other \"quoted\""])
        #expect(entries.map { $0["token"]?.stringValue } == ["t0", "t1", "t2", "t3", "t4", "next"])
        file.close()
        let reopened = try StateFile.open(path: path, seed: seed)
        defer { reopened.close() }
        let byProject = Dictionary(
            uniqueKeysWithValues: reopened.initialState.projects.map { ($0.key, $0.pushTokens.map(\.id).sorted()) }
        )
        #expect(byProject == ["demo": ["t0", "t1", "t3"], "other \"quoted\"": ["next", "t2", "t4"]])
    }

    @Test func otherEventsInTheSameCommitKeepTheirOrderWithTheLog() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("mixed.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        let imported = StoredState(
            seed: nil,
            projects: [StoredProject(key: "demo", pushTokens: [Fixtures.token("imported")])]
        )
        // A reset between registrations of one commit drops the ones before it, not after.
        try file.write([
            .tokenUpserted(project: "demo", token: Fixtures.token("before")),
            .replaced(imported),
            .tokenUpserted(project: "demo", token: Fixtures.token("after")),
        ])
        #expect(Self.tokens(try file.loadSnapshot()) == ["imported", "after"])
        file.close()
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(Self.tokens(reopened.initialState) == ["imported", "after"])
    }

    @Test func aRefusedCommitLeavesNothingInTheNextRow() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("refused.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { file.close() }
        file.limitGrowthForTesting()
        let big = StoredItem(
            id: "refused",
            body: .object([("padding", .string(String(repeating: "x", count: 20_000)))])
        )
        #expect(throws: StateStoreError.self) { try file.write([.tokenUpserted(project: "demo", token: big)]) }
        _ = file.readForTesting { (try? $0.connection.execute("PRAGMA max_page_count = 1000000")) != nil }
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("kept"))])
        #expect(Self.logTexts(file).count == 1)
        #expect(Self.logTexts(file).first?.contains("refused") == false)
        #expect(Self.tokens(try file.loadSnapshot()) == ["kept"])
    }

    @Test(arguments: [
        #"not json"#, #"[{"project": "demo", "token": "x"}]"#,
        #"[{"project": 1, "token": "x", "seq": 9, "record": null}]"#,
    ])
    func aLogRowThatIsNotEntriesRefusesTheFileNamingIt(entries: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("bad-log.db")
        try StateFile.open(path: path, seed: Fixtures.seedState).close()
        do {
            let connection = try SQLiteConnection(path: path, flags: SQLiteConnection.readWriteCreate)
            let insert = try connection.prepare("INSERT INTO token_log (seq, entries) VALUES (100, ?1)")
            try insert.bind(1, entries)
            try insert.run()
        }  // closed here, before the server opens it
        do {
            let file = try StateFile.open(path: path, seed: Fixtures.seedState)
            file.close()
            Issue.record("a token_log row of \(entries) was accepted")
        } catch {
            guard case .corrupt(let named, let detail) = error else {
                Issue.record("refused as \(error), not as damaged")
                return
            }
            #expect(named == path)
            #expect(detail.contains("token_log"))
        }
    }

    @Test func replacingTheWholeStateEmptiesTheLog() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("replaced.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("old"))])
        let imported = StoredState(
            seed: nil,
            projects: [StoredProject(key: "demo", pushTokens: [Fixtures.token("new")])]
        )
        try file.write([.replaced(imported)])
        #expect(Self.logRows(file) == 0)
        #expect(Self.tokens(try file.loadSnapshot()) == ["new"])
        file.close()
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(Self.tokens(reopened.initialState) == ["new"])
    }

    /// Rows in `token_log`, read with the committer's file held.
    static func logRows(_ committer: GroupCommitter) -> Int? {
        committer.read { database in
            guard let stmt = try? database.connection.prepare("SELECT count(*) FROM token_log"),
                (try? stmt.step()) == true
            else { return -1 }
            return Int(stmt.int64(0))
        }
    }

    @Test func deadWeightCountsRegistrationsAgainAndRemovals() throws {
        let dir = try TemporaryDirectory()
        let (database, _) = try StateDatabase.open(
            path: dir.file("dead.db"),
            seed: Fixtures.seedState,
            durability: .processCrash
        )
        let committer = GroupCommitter(database: database)
        defer { committer.close() }
        try committer.write([
            .tokenUpserted(project: "demo", token: Fixtures.token("a")),
            .tokenUpserted(project: "demo", token: Fixtures.token("b")),
            .tokenUpserted(project: "demo", token: Fixtures.token("a")),  // the first a is dead
            .tokenDeleted(project: "demo", token: "b"),  // b and its removal
            .tokenDeleted(project: "demo", token: "never-registered"),  // the removal itself
            .tokenUpserted(project: "other", token: Fixtures.token("a")),  // another project's a
        ])
        #expect(committer.read { $0.loggedTokens } == 6)
        #expect(committer.read { $0.deadTokenEntries } == 4)
    }

    @Test func theDeadWeightTableIsFixedInSizeAndNeverCountsANewTokenAsDead() throws {
        let dir = try TemporaryDirectory()
        let (database, _) = try StateDatabase.open(
            path: dir.file("table.db"),
            seed: Fixtures.seedState,
            durability: .processCrash
        )
        let committer = GroupCommitter(database: database)
        defer { committer.close() }
        let tokens = (0..<5_000).map { "device-\($0)" }
        for chunk in stride(from: 0, to: tokens.count, by: 1_000) {
            try committer.write(
                tokens[chunk..<chunk + 1_000].map { .tokenUpserted(project: "demo", token: Fixtures.token($0)) }
            )
        }
        #expect(committer.read { $0.deadTokenEntries } == 0, "distinct tokens: nothing is dead")
        for chunk in stride(from: 0, to: tokens.count, by: 1_000) {
            try committer.write(
                tokens[chunk..<chunk + 1_000].map {
                    .tokenUpserted(project: "demo", token: Fixtures.token($0, platform: "android"))
                }
            )
        }
        // Each again makes its first entry dead; a few were pushed out of the 65,536 slots by
        // another token's hash and go uncounted.
        let dead = try #require(committer.read { $0.deadTokenEntries })
        // About n²/m = 380 of them by chance; many more would mean slots go unused.
        #expect(dead <= 5_000 && dead >= 4_400, "\(dead) of 5,000 seen")
    }

    @Test func aLogOfLiveTokensIsNotFoldedWhileTheServerRunsButAtTheNextOpen() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("live.db")
        // In a scope of its own, so the file's connection is gone before it is opened again.
        do {
            let (database, _) = try StateDatabase.open(path: path, seed: Fixtures.seedState, durability: .processCrash)
            database.foldTokenLogAfter = 10
            let committer = GroupCommitter(database: database, checkpointAfter: StateDatabase.logFramesPerCheckpoint)
            for i in stride(from: 0, to: 15, by: 3) {
                try committer.write(
                    (i..<i + 3).map { .tokenUpserted(project: "demo", token: Fixtures.token("t\($0)")) }
                )
            }
            // Every entry is a token of its own: the log holds them as compactly as push_tokens would.
            #expect(committer.read { $0.foldIsDue } == false)
            #expect(committer.read { $0.loggedTokens } == 15)
            #expect(Self.logRows(committer) == 5)
            let state = try #require(committer.read { try? $0.load() } ?? nil)
            #expect(Self.tokens(state) == (0..<15).map { "t\($0)" })
            committer.close()
        }
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(Self.logRows(reopened) == 0, "folded at open")
        #expect(Self.tokens(reopened.initialState) == (0..<15).map { "t\($0)" })
    }

    @Test func aLogOfDeadWeightIsFoldedInTheBackgroundAFewRowsAtATime() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("grown.db")
        do {
            let (database, _) = try StateDatabase.open(path: path, seed: Fixtures.seedState, durability: .processCrash)
            database.foldTokenLogAfter = 10
            database.foldRowsPerStep = 2
            let committer = GroupCommitter(database: database, checkpointAfter: StateDatabase.logFramesPerCheckpoint)
            // Five tokens registered three times over, one commit (one log row) each; the third round
            // also removes t0 and registers t5. At the tenth entry half the log is dead: a fold of
            // two rows a step begins, and the commits go on between its steps.
            for round in 0..<3 {
                for i in 0..<5 {
                    try committer.write([
                        .tokenUpserted(
                            project: "demo",
                            token: Fixtures.token("t\(i)", platform: round == 2 ? "android" : "ios")
                        )
                    ])
                }
            }
            try committer.write([
                .tokenDeleted(project: "demo", token: "t0"),
                .tokenUpserted(project: "demo", token: Fixtures.token("t5")),
            ])
            #expect(PersistenceWait.until { committer.read { !$0.foldIsDue && $0.foldingThrough == nil } == true })
            #expect(PersistenceWait.until { (Self.logRows(committer) ?? 99) < 16 })
            let state = try #require(committer.read { try? $0.load() } ?? nil)
            #expect(Self.tokens(state) == ["t1", "t2", "t3", "t4", "t5"])
            #expect(Self.platforms(state) == ["android", "android", "android", "android", "ios"])
            committer.close()
        }
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(Self.tokens(reopened.initialState) == ["t1", "t2", "t3", "t4", "t5"])
        #expect(Self.platforms(reopened.initialState) == ["android", "android", "android", "android", "ios"])
    }

    /// A file built by hand as schema `version` laid it out, holding `rows` (SQL inserts).
    static func makeFile(_ path: String, version: Int, rows: String) throws {
        let connection = try SQLiteConnection(path: path, flags: SQLiteConnection.readWriteCreate)
        try connection.execute("PRAGMA application_id = \(Int32(bitPattern: StateSchema.applicationID))")
        for step in 0..<version { try connection.execute(StateSchema.migrations[step]) }
        try connection.execute("PRAGMA user_version = \(version)")
        try connection.execute(rows)
    }

    /// A file as version 1 wrote it: tokens in push_tokens, no token_log.
    static func makeVersion1File(_ path: String) throws {
        try makeFile(
            path,
            version: 1,
            rows: """
                INSERT INTO meta (key, value) VALUES ('seed', '{"projects": [{"key": "demo"}]}');
                INSERT INTO projects (key, seq, attributes) VALUES ('demo', 1, '{}');
                INSERT INTO push_tokens (project, token, seq, body) VALUES ('demo', 'old-b', 3, '{"token": "old-b", "platform": "ios"}');
                INSERT INTO push_tokens (project, token, seq, body) VALUES ('demo', 'old-a', 2, '{"token": "old-a", "platform": "ios"}');
                """
        )
    }

    @Test func aVersion1FileIsMigratedAndKeepsItsTokens() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v1.db")
        try Self.makeVersion1File(path)
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        #expect(Self.tokens(file.initialState) == ["old-a", "old-b"])
        #expect(
            file.readForTesting { try? $0.connection.pragmaInteger("user_version") }
                == Int64(StateSchema.currentVersion)
        )
        // New writes get seqs after the old rows: they go last, and a removal of an old row holds.
        try file.write([
            .tokenUpserted(project: "demo", token: Fixtures.token("new")),
            .tokenDeleted(project: "demo", token: "old-a"),
        ])
        file.close()
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(Self.tokens(reopened.initialState) == ["old-b", "new"])
    }

    /// A file as version 2 wrote it: one token_log row per registration or removal (NULL body),
    /// not yet folded (the server was killed).
    static func makeVersion2File(_ path: String) throws {
        try makeFile(
            path,
            version: 2,
            rows: """
                INSERT INTO meta (key, value) VALUES ('seed', '{"projects": [{"key": "demo"}]}');
                INSERT INTO projects (key, seq, attributes) VALUES ('demo', 1, '{}');
                INSERT INTO push_tokens (project, token, seq, body) VALUES ('demo', 'folded', 2, '{"token": "folded", "platform": "ios"}');
                INSERT INTO token_log (seq, project, token, body) VALUES (3, 'demo', 'a', '{"token": "a", "platform": "ios"}');
                INSERT INTO token_log (seq, project, token, body) VALUES (4, 'demo', 'b', '{"token": "b", "platform": "ios"}');
                INSERT INTO token_log (seq, project, token, body) VALUES (5, 'demo', 'a', NULL);
                INSERT INTO token_log (seq, project, token, body) VALUES (6, 'demo', 'b', '{"token": "b", "platform": "android"}');
                INSERT INTO token_log (seq, project, token, body) VALUES (7, 'demo', 'a', '{"token": "a", "platform": "android"}');
                """
        )
    }

    static let version2Tokens = ["folded", "b", "a"]
    static let version2Platforms = ["ios", "android", "android"]

    @Test func migratingFromVersion2KeepsTheLogsEntriesInOrder() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v2.db")
        try Self.makeVersion2File(path)
        // The migration alone: each old row becomes a row of one entry, same seq, same record.
        let connection = try SQLiteConnection(path: path, flags: SQLiteConnection.readWriteCreate)
        try connection.transaction(
            { () throws(SQLiteError) in
                try StateDatabase(connection: connection).migrate(from: 2)
            },
            context: "migrating"
        )
        let texts = try Self.logTexts(connection)
        #expect(texts.count == 5)
        let entries = try texts.map { text in try #require(try JSON.parse(text).arrayValue?.first) }
        #expect(entries.map { $0["token"]?.stringValue } == ["a", "b", "a", "b", "a"])
        #expect(entries.map { $0["seq"]?.intValue } == [3, 4, 5, 6, 7])
        #expect(entries[2]["record"] == .null)
        #expect(entries[3]["record"]?["platform"]?.stringValue == "android")
        let migrated = try StateDatabase(connection: connection).load()
        #expect(Self.tokens(migrated) == Self.version2Tokens)
        #expect(Self.platforms(migrated) == Self.version2Platforms)
    }

    @Test func aVersion2FileOpensFoldedAndTakesNewWrites() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v2-open.db")
        try Self.makeVersion2File(path)
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        #expect(Self.tokens(file.initialState) == Self.version2Tokens)
        #expect(Self.platforms(file.initialState) == Self.version2Platforms)
        #expect(
            file.readForTesting { try? $0.connection.pragmaInteger("user_version") }
                == Int64(StateSchema.currentVersion)
        )
        #expect(Self.logRows(file) == 0, "folded at open")
        try file.write([
            .tokenUpserted(project: "demo", token: Fixtures.token("new")),
            .tokenDeleted(project: "demo", token: "folded"),
        ])
        file.close()
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(Self.tokens(reopened.initialState) == ["b", "a", "new"])
    }

    @Test func aVersion2FileReadAsItIsGivesTheSameTokens() throws {
        // A read-only file is never migrated: its version-2 log is read in that layout.
        let dir = try TemporaryDirectory()
        let path = dir.file("v2-read.db")
        try Self.makeVersion2File(path)
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        let state = try StateDatabase(connection: connection).load()
        #expect(Self.tokens(state) == Self.version2Tokens)
        #expect(Self.platforms(state) == Self.version2Platforms)
    }
}
