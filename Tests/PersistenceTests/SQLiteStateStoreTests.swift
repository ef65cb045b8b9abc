import JSON
import MockServer
import Testing

@testable import Persistence

/// The store under a real MockServer: whatever the admin API acknowledged is there after a restart.
@Suite struct SQLiteStateStoreTests {
    static let seedJSON = """
        {"projects": [{"key": "demo", "apns_topic": "dev.lerix.demo", "fcm_project": "demo",
          "rules": [{"type": "optional_update", "below": "2.0.0", "store_url": "https://example.com"}],
          "push_tokens": [{"token": "seeded-token", "platform": "ios"}]}]}
        """

    static func seed() throws -> StateSnapshot {
        try StateSnapshot(json: JSON.parse(seedJSON))
    }

    @Test func everyKindOfWriteIsFoundAfterARestart() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        let first = try ServerOnFile(path: path, seed: try Self.seed())
        #expect(first.store.created)
        #expect(
            first.call("PUT", "/admin/projects/second", #"{"apns_topic": "dev.second", "fcm_project": "second"}"#)
                .status < 300
        )
        let created = first.call(
            "POST",
            "/admin/projects/demo/rules",
            #"{"type": "required_update", "platforms": ["ios"], "below": "2.4.0"}"#
        )
        #expect(created.status == 201)
        let ruleId = try #require(created.json?["id"]?.stringValue)
        #expect(
            first.call("PUT", "/admin/projects/demo/rules/\(ruleId)", #"{"type": "required_update", "below": "2.5.0"}"#)
                .status == 200
        )
        let window =
            #"{"type": "maintenance", "starts_at": "\#(first.time(60))", "ends_at": "\#(first.time(3600))", "message": "db"}"#
        #expect(first.call("POST", "/admin/projects/demo/rules", window).status == 201)
        #expect(first.call("PUT", "/v1/projects/demo/push-tokens/tok-a", #"{"platform": "ios"}"#).status == 204)
        #expect(first.call("PUT", "/v1/projects/demo/push-tokens/tok-b", #"{"platform": "android"}"#).status == 204)
        #expect(first.call("DELETE", "/v1/projects/demo/push-tokens/seeded-token").status == 204)
        #expect(first.call("POST", "/v1/projects/demo/ingest/errors", "[1, 2, 3]").status == 202)
        first.clock.advance(bySeconds: 120)
        #expect(first.call("POST", "/admin/projects/demo/lift-all").status == 200)
        #expect(
            first.call(
                "POST",
                "/admin/projects/second/rules",
                #"{"type": "sdk_switch", "modules": ["analytics"], "ends_at": "\#(first.time(600))"}"#
            ).status == 201
        )
        first.clock.advance(bySeconds: 120)

        let before = try #require(first.exported)
        let changes = first.call("GET", "/admin/projects/demo/changes").json?["changes"]?.arrayValue ?? []
        let pushes = first.call("GET", "/admin/projects/demo/pushes").json?["pushes"]?.arrayValue ?? []
        #expect(changes.count >= 3)
        #expect(!pushes.isEmpty)
        first.close()

        let second = try ServerOnFile(path: path, now: first.clock.now)
        defer { second.close() }
        #expect(!second.store.created)
        #expect(second.exported == before)
        #expect(second.call("GET", "/admin/projects/demo/changes").json?["changes"]?.arrayValue == changes)
        #expect(second.call("GET", "/admin/projects/demo/pushes").json?["pushes"]?.arrayValue == pushes)
        // New ids do not collide with restored ones.
        let next = second.call("POST", "/admin/projects/demo/rules", #"{"type": "optional_update", "below": "9.0.0"}"#)
        #expect(next.status == 201)
        #expect(next.json?["id"]?.stringValue != ruleId)
    }

    @Test func resetReturnsToTheFilesSeedEvenWhenStartedWithAnotherOne() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        let seed = try Self.seed()
        let first = try ServerOnFile(path: path, seed: seed)
        let seeded = try #require(first.exported)
        #expect(first.call("PUT", "/v1/projects/demo/push-tokens/tok-a", #"{"platform": "ios"}"#).status == 204)
        first.close()

        // Restarted with the default seed (as without --config): the file's seed still wins.
        let second = try ServerOnFile(path: path, seed: .defaultSeed)
        #expect(second.store.seed == seed)
        #expect(second.exported != seeded)
        #expect(second.call("POST", "/admin/reset").status == 200)
        #expect(second.exported == seeded)
        second.close()

        let third = try ServerOnFile(path: path)
        defer { third.close() }
        #expect(third.exported == seeded)
    }

    @Test func anImportedSnapshotIsWhatTheNextStartLoads() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        let first = try ServerOnFile(path: path)
        let snapshot =
            #"{"projects": [{"key": "imported", "apns_topic": "dev.imported", "rules": [{"id": "r7", "type": "required_update", "below": "3.0.0"}], "push_tokens": [{"token": "t1", "platform": "macos"}], "ingest": {"surveys": 4}}]}"#
        #expect(first.call("PUT", "/admin/state", snapshot).status == 200)
        let after = try #require(first.exported)
        // A bad snapshot changes nothing, in memory or on disk.
        #expect(
            first.call("PUT", "/admin/state", #"{"projects": [{"key": "x", "rules": [{"type": "nope"}]}]}"#).status
                == 422
        )
        first.close()
        let second = try ServerOnFile(path: path)
        defer { second.close() }
        #expect(second.exported == after)
        #expect(second.call("GET", "/admin/projects/imported/rules/r7").status == 200)
    }

    @Test func aDiskThatRefusesWritesAnswers503WhileReadsAndChecksWork() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        let server = try ServerOnFile(path: path)
        defer { server.close() }
        #expect(server.call("PUT", "/v1/projects/demo/push-tokens/kept", #"{"platform": "ios"}"#).status == 204)
        server.store.refuseWritesForTesting()
        let refused = server.call(
            "POST",
            "/admin/projects/demo/rules",
            #"{"type": "required_update", "below": "2.0.0"}"#
        )
        #expect(refused.status == 503)
        #expect(refused.json?["detail"]?.stringValue?.contains(path) == true)
        #expect(server.call("PUT", "/v1/projects/demo/push-tokens/lost", #"{"platform": "ios"}"#).status == 503)
        #expect(server.call("GET", "/admin/projects/demo/rules").json?["rules"]?.arrayValue == [])
        #expect(server.call("GET", "/v1/projects/demo/release-control?platform=ios&version=1.0.0").status == 200)
        let tokens = server.call("GET", "/admin/projects/demo/push-tokens").json?["push_tokens"]?.arrayValue ?? []
        #expect(tokens.map { $0["token"]?.stringValue } == ["kept"])
    }

    @Test func aFileWhoseContentsNoLongerValidateIsRefusedAtStart() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        do {
            let file = try StateFile.open(
                path: path,
                seed: StoredState(seed: .object([("projects", .array([]))]), projects: [])
            )
            try file.write([
                .ruleUpserted(
                    project: "demo",
                    rule: StoredItem(id: "r1", body: .object([("id", "r1"), ("type", "bogus")]))
                )
            ])
            file.close()
        }
        #expect {
            try SQLiteStateStore.open(path: path, seed: .defaultSeed).close()
        } throws: { error in
            guard let error = error as? StateFileError, case .corrupt = error else { return false }
            return error.description.contains(path) && error.description.contains("/projects/0/rules/0")
        }
    }
}
