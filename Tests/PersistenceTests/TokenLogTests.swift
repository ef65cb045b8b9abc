import CSQLite
import JSON
import Testing

@testable import Persistence

/// Token registrations and removals are appended to `token_log` and folded into `push_tokens`
/// at open (and in the background once the log has grown); what reads back is what the upserts
/// and deletes of schema version 1 gave: a token registered again keeps its place with the new
/// record, one removed and registered again goes last.
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
            guard let stmt = try? database.connection.prepare("SELECT count(*) FROM token_log"), (try? stmt.step()) == true else { return -1 }
            return Int(stmt.int64(0))
        }
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
        #expect(Self.logRows(file) == Self.writes.count, "every registration and removal appended")
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
        try reopened.write([.tokenUpserted(project: "demo", token: Fixtures.token("c", platform: "android")), .tokenDeleted(project: "demo", token: "b")])
        let combined = try reopened.loadSnapshot()
        #expect(Self.tokens(combined) == ["c", "a"])
        #expect(Self.platforms(combined) == ["android", "ios"])
    }

    @Test func replacingTheWholeStateEmptiesTheLog() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("replaced.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("old"))])
        let imported = StoredState(seed: nil, projects: [StoredProject(key: "demo", pushTokens: [Fixtures.token("new")])])
        try file.write([.replaced(imported)])
        #expect(Self.logRows(file) == 0)
        #expect(Self.tokens(try file.loadSnapshot()) == ["new"])
        file.close()
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(Self.tokens(reopened.initialState) == ["new"])
    }

    @Test func aGrownLogIsFoldedInTheBackground() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("grown.db")
        let (database, _) = try StateDatabase.open(path: path, seed: Fixtures.seedState, durability: .processCrash)
        database.foldTokenLogAfter = 10
        let committer = GroupCommitter(database: database, checkpointAfter: StateDatabase.logFramesPerCheckpoint)
        for i in 0..<15 {
            try committer.write([.tokenUpserted(project: "demo", token: Fixtures.token("t\(i)"))])
        }
        #expect(PersistenceWait.until { committer.read { $0.loggedTokens < 10 } == true })
        let state = try #require(committer.read { try? $0.load() } ?? nil)
        #expect(Self.tokens(state) == (0..<15).map { "t\($0)" })
        committer.close()
    }

    /// A file as version 1 wrote it: tokens in push_tokens, no token_log.
    static func makeVersion1File(_ path: String) throws {
        let connection = try SQLiteConnection(path: path, flags: SQLiteConnection.readWriteCreate)
        try connection.execute("PRAGMA application_id = \(Int32(bitPattern: StateSchema.applicationID))")
        try connection.execute(StateSchema.migrations[0])
        try connection.execute("PRAGMA user_version = 1")
        try connection.execute("""
            INSERT INTO meta (key, value) VALUES ('seed', '{"projects": [{"key": "demo"}]}');
            INSERT INTO projects (key, seq, attributes) VALUES ('demo', 1, '{}');
            INSERT INTO push_tokens (project, token, seq, body) VALUES ('demo', 'old-b', 3, '{"token": "old-b", "platform": "ios"}');
            INSERT INTO push_tokens (project, token, seq, body) VALUES ('demo', 'old-a', 2, '{"token": "old-a", "platform": "ios"}');
            """)
    }

    @Test func aVersion1FileIsMigratedAndKeepsItsTokens() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v1.db")
        try Self.makeVersion1File(path)
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        #expect(Self.tokens(file.initialState) == ["old-a", "old-b"])
        #expect(file.readForTesting { try? $0.connection.pragmaInteger("user_version") } == Int64(StateSchema.currentVersion))
        // New writes get seqs after the old rows: they go last, and a removal of an old row holds.
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("new")), .tokenDeleted(project: "demo", token: "old-a")])
        file.close()
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(Self.tokens(reopened.initialState) == ["old-b", "new"])
    }
}
