import Foundation
import JSON
import Testing

@testable import Persistence

@Suite struct StateFileRoundTripTests {
    @Test func aNewFileHoldsTheSeedAndSaysItWasCreated() throws {
        let dir = try TemporaryDirectory()
        let file = try StateFile.open(path: dir.file("state.db"), seed: Fixtures.seedState)
        defer { file.close() }
        #expect(file.created)
        #expect(file.initialState == Fixtures.seedState)
        #expect(try file.loadSnapshot() == Fixtures.seedState)
    }

    @Test func everyEventKindIsFoundAfterReopening() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        try file.write([.projectUpserted(key: "demo", attributes: .object([("apns_topic", "dev.lerix.demo")]))])
        try file.write([.projectUpserted(key: "other", attributes: .object([]))])
        try file.write([.ruleUpserted(project: "demo", rule: Fixtures.rule("r1", below: "2.0.0"))])
        try file.write([.ruleUpserted(project: "demo", rule: Fixtures.rule("r2", below: "3.0.0"))])
        try file.write([.ruleUpserted(project: "demo", rule: Fixtures.rule("r1", below: "2.5.0"))])
        try file.write([
            .ruleUpserted(project: "demo", rule: Fixtures.rule("r3", below: "4.0.0")),
            .ruleDeleted(project: "demo", id: "r2"),
        ])
        try file.write([.changeAppended(project: "demo", id: 1, body: Fixtures.change(1, action: "created").body)])
        try file.write([.changeAppended(project: "demo", id: 2, body: Fixtures.change(2, action: "deleted").body)])
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("a"))])
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("b", platform: "android"))])
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("a", platform: "macos"))])
        try file.write([
            .tokenUpserted(project: "other", token: Fixtures.token("c")), .tokenDeleted(project: "demo", token: "b"),
        ])
        try file.write([.pushRecorded(project: "demo", id: 1, body: Fixtures.push(1, pending: 2).body)])
        try file.write([.pushRecorded(project: "demo", id: 1, body: Fixtures.push(1, pending: 0).body)])
        try file.write([.ingestCounted(project: "demo", module: "errors", total: 2)])
        try file.write([
            .ingestCounted(project: "demo", module: "errors", total: 5),
            .ingestCounted(project: "demo", module: "analytics", total: 1),
        ])

        let expected = StoredState(
            seed: Fixtures.seed,
            projects: [
                StoredProject(
                    key: "demo",
                    attributes: .object([("apns_topic", "dev.lerix.demo")]),
                    rules: [Fixtures.rule("r1", below: "2.5.0"), Fixtures.rule("r3", below: "4.0.0")],
                    changes: [Fixtures.change(1, action: "created"), Fixtures.change(2, action: "deleted")],
                    pushTokens: [Fixtures.token("a", platform: "macos")],
                    pushes: [Fixtures.push(1, pending: 0)],
                    ingest: [
                        StoredIngestCount(module: "errors", count: 5), StoredIngestCount(module: "analytics", count: 1),
                    ]
                ),
                StoredProject(key: "other", pushTokens: [Fixtures.token("c")]),
            ]
        )
        #expect(try file.loadSnapshot() == expected)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        file.close()
        // Closing folds the write-ahead log back into the file.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        let reopened = try StateFile.open(path: path, seed: StoredState(seed: "ignored", projects: []))
        defer { reopened.close() }
        #expect(!reopened.created)
        #expect(reopened.initialState == expected)
    }

    @Test func replacingEverythingKeepsTheStoredSeedUnlessANewOneIsGiven() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("a"))])
        let imported = StoredState(
            seed: nil,
            projects: [StoredProject(key: "imported", rules: [Fixtures.rule("r9", below: "1.0")])]
        )
        try file.write([.replaced(imported)])
        #expect(try file.loadSnapshot() == StoredState(seed: Fixtures.seed, projects: imported.projects))
        try file.write([.replaced(StoredState(seed: "new seed", projects: []))])
        #expect(try file.loadSnapshot() == StoredState(seed: "new seed", projects: []))
        file.close()
    }

    @Test func anEmptyFileIsTreatedAsNew() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        TemporaryDirectory.write([], to: path)
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { file.close() }
        #expect(file.created)
        #expect(file.initialState == Fixtures.seedState)
    }

    @Test func aFileFromAnOlderSchemaIsMigratedOnOpen() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        // A version-0 file: ours (application id set) but without tables yet.
        do {
            let connection = try SQLiteConnection(path: path, flags: SQLiteConnection.readWriteCreate)
            try connection.execute("PRAGMA application_id = \(Int32(bitPattern: StateSchema.applicationID))")
        }
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { file.close() }
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("a"))])
        #expect(try file.loadSnapshot().projects.first?.pushTokens == [Fixtures.token("a")])
    }
}
