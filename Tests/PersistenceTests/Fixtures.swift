import JSON

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
}
