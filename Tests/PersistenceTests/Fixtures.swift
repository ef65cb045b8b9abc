import JSON
import Testing

@testable import Persistence

/// Small stored values the engine tests write and read back.
enum Fixtures {
    static let seed: JSON = .object([("projects", .array([.object([("key", "demo")])]))])

    static let seedState = StoredState(seed: seed, projects: [StoredProject(key: "demo")])

    static func rule(_ id: String, below: String) -> StoredItem {
        StoredItem(
            id: id,
            body: .object([("id", .string(id)), ("type", "required_update"), ("below", .string(below))])
        )
    }

    static func token(_ token: String, platform: String = "ios") -> StoredItem {
        StoredItem(id: token, body: .object([("token", .string(token)), ("platform", .string(platform))]))
    }

    static func change(_ id: Int, action: String) -> StoredRecord {
        StoredRecord(
            id: id,
            body: .object([("id", .number(Double(id))), ("action", .string(action)), ("blocking", true)])
        )
    }

    static func push(_ id: Int, pending: Int) -> StoredRecord {
        StoredRecord(id: id, body: .object([("id", .number(Double(id))), ("pending", .number(Double(pending)))]))
    }

    /// A state file `name` in a new temporary folder, holding `events`, closed again.
    static func closedStateFile(
        _ name: String,
        holding events: [StoredEvent]
    ) throws -> (
        dir: TemporaryDirectory, path: String
    ) {
        let dir = try TemporaryDirectory()
        let path = dir.file(name)
        let file = try StateFile.open(path: path, seed: seedState)
        try file.write(events)
        file.close()
        return (dir, path)
    }

    /// A file holding the token "kept" that cannot be written (read-only, or in a read-only
    /// folder) opens with what it holds, refuses a write, and still holds just that.
    static func expectLoadsButRefusesWrites(_ path: String) throws {
        let reopened = try StateFile.open(path: path, seed: seedState)
        defer { reopened.close() }
        #expect(reopened.initialState.projects.first?.pushTokens == [token("kept")])
        #expect(throws: StateStoreError.self) {
            try reopened.write([.tokenUpserted(project: "demo", token: token("lost"))])
        }
        #expect(try reopened.loadSnapshot().projects.first?.pushTokens == [token("kept")])
    }
}
