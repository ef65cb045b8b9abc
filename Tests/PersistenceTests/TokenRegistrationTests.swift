import Clock
import JSON
import MockServer
import Testing

@testable import Persistence

/// Registrations are written as bytes, not through a JSON value: the bytes must be the JSON.
@Suite struct TokenRegistrationTests {
    static let at = Instant(rfc3339: "2026-12-03T15:20:35.123Z") ?? Instant(millisecondsSinceEpoch: 0)

    static let tokens: [StateSnapshot.Token] = [
        StateSnapshot.Token(token: "abc", platform: .ios, registeredAt: at),
        StateSnapshot.Token(token: "seeded", platform: .android),
        StateSnapshot.Token(token: "quote\"back\\slash\ttab\u{1}ctl-é", platform: .macos, registeredAt: at),
        StateSnapshot.Token(token: "", platform: .ios, registeredAt: at),
        StateSnapshot.Token(token: "w", platform: .web, registeredAt: at),
    ]

    @Test(arguments: tokens)
    func theWrittenBytesAreTheTokensSerializedJSON(_ token: StateSnapshot.Token) {
        var bytes: [UInt8] = [0x41]  // appends: what is already there stays
        token.writeJSON(into: &bytes)
        #expect(bytes == [0x41] + token.json.serialized())
    }

    @Test func aRegistrationReadsBackAsTheTokensJSONAndReplacesAnEarlierOne() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("abc", platform: "android"))])
        try file.write(Self.tokens.map { .tokenRegistered(project: "demo", token: $0) })
        file.close()

        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        let stored = reopened.initialState.projects.first { $0.key == "demo" }?.pushTokens ?? []
        #expect(stored == Self.tokens.map { StoredItem(id: $0.token, body: $0.json) })
    }
}
