import JSON
import ReleaseControl
import Testing

@testable import MockServer

@Suite struct ConfigTests {
    @Test func jsonSeedLoadsProjectsRulesAndTokens() throws {
        let seed = try ConfigFile.parse(
            Array(
                """
                {"projects": [{"key": "demo", "apns_topic": "dev.lerix.demo", "fcm_project": "demo",
                               "rules": [{"type": "required_update", "platforms": ["ios"], "below": "2.4.0"}],
                               "push_tokens": [{"token": "abc", "platform": "ios"}]},
                              {"key": "second"}]}
                """.utf8
            ),
            file: "seed.json"
        )
        let h = try Harness(seed: seed)
        #expect(h.get("/admin/projects")["projects"]?.arrayValue?.map { $0["key"] } == ["demo", "second"])
        #expect(h.get("/admin/projects/demo")["apns_topic"] == "dev.lerix.demo")
        #expect(h.check("platform=ios&version=2.0")["required_update"]?["rule"] == "r1")
        #expect(h.check("platform=ios&version=2.0")["lifetime"] == 300, "loading the seed is not a change")
        #expect(h.get("/admin/projects/demo/changes")["changes"] == [])
        #expect(h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue?.count == 1)
    }

    @Test func badConfigNamesFileFieldAndReason() {
        #expect(throws: ConfigError.self) { try ConfigFile.parse(Array("{".utf8), file: "seed.json") }
        do {
            _ = try ConfigFile.parse(
                Array(
                    """
                    {"projects": [{"key": "demo", "rules": [{"type": "required_update", "below": "two"}],
                                   "push_tokens": [{"token": "t", "platform": "web"}]}]}
                    """.utf8
                ),
                file: "seed.json"
            )
            Issue.record("expected a ConfigError")
        } catch {
            #expect(error.file == "seed.json")
            #expect(error.items.map(\.pointer) == ["/projects/0/rules/0/below", "/projects/0/push_tokens/0/platform"])
            #expect(error.description.hasPrefix("seed.json: /projects/0/rules/0/below: "))
        }
        do {
            _ = try ConfigFile.parse(
                Array(#"{"projects": [{"key": "a"}, {"key": "a"}], "extra": 1}"#.utf8),
                file: "x.json"
            )
            Issue.record("expected a ConfigError")
        } catch {
            #expect(Set(error.items.map(\.pointer)) == ["/extra", "/projects/1/key"])
        }
    }

    @Test func yamlSeedLoadsAndErrorsCarryLines() throws {
        let seed = try ConfigFile.parse(
            Array(
                """
                projects:
                  - key: demo
                    rules:
                      - type: optional_update
                        below: "3.0"
                """.utf8
            ),
            file: "seed.yaml"
        )
        #expect(seed.projects.first?.rules.first?.id == "r1")
        do {
            _ = try ConfigFile.parse(
                Array(
                    """
                    projects:
                      - key: demo
                        rules:
                          - type: optional_update
                            below: banana
                    """.utf8
                ),
                file: "seed.yml"
            )
            Issue.record("expected a ConfigError")
        } catch {
            #expect(error.items.first?.pointer == "/projects/0/rules/0/below")
            #expect(error.items.first?.line == 5)
            #expect(error.description.hasPrefix("seed.yml:5:"))
        }
    }

    @Test func missingFileIsAConfigErrorNamingIt() {
        do {
            _ = try ConfigFile.load(path: "/nonexistent/seed.json")
            Issue.record("expected a ConfigError")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/seed.json: cannot open"))
        }
    }
}

@Suite struct StoreTests {
    @Test func writesReachTheStoreInOrderBeforeTheAnswer() throws {
        let store = MemoryStateStore()
        let h = try Harness(store: store)
        _ = h.put("/admin/projects/shop", "")
        _ = h.put("/v1/projects/demo/push-tokens/t1", #"{"platform": "ios"}"#)
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        _ = h.post("/v1/projects/demo/ingest/errors", "[1, 2]")
        _ = h.check("platform=ios")
        let events = store.events
        #expect(events.count == 8)
        guard events.count == 8 else { return }
        #expect(events[0] == .replaced(.defaultSeed), "a new store gets the seed")
        #expect(events[1] == .projectUpserted(key: "shop", apnsTopic: nil, fcmProject: nil))
        if case .tokenUpserted(let project, let token) = events[2] {
            #expect(project == "demo" && token.token == "t1")
        } else {
            Issue.record("expected tokenUpserted, got \(events[2])")
        }
        if case .ruleUpserted(_, let rule) = events[3] {
            #expect(rule.id == "r1")
        } else {
            Issue.record("\(events[3])")
        }
        if case .changeAppended(_, let change) = events[4] {
            #expect(change.blocking)
        } else {
            Issue.record("\(events[4])")
        }
        if case .pushRecorded(_, let push) = events[5] {
            #expect(push.changes == [1])
        } else {
            Issue.record("\(events[5])")
        }
        if case .pushUpdated(_, let push) = events[6] {
            #expect(push.count { $0 == .noGateway } == 1)
        } else {
            Issue.record("\(events[6])")
        }
        #expect(events[7] == .ingestCounted(project: "demo", module: "errors", total: 2))
    }

    @Test func aRefusingStoreAnswers503AndChangesNothing() throws {
        let store = MemoryStateStore()
        let h = try Harness(store: store)
        store.failWrites = true
        let refused = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)
        #expect(refused.status == 503)
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(h.put("/v1/projects/demo/push-tokens/t1", #"{"platform": "ios"}"#).status == 503)
        #expect(h.post("/admin/reset", "").status == 503)
        #expect(h.get("/admin/projects/demo/rules")["rules"] == [], "reads keep working")
        #expect(h.check("platform=ios&version=1.0")["required_update"] == .null)
        store.failWrites = false
        #expect(h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#)["id"] == "r1")
    }

    @Test func aStoredStateWinsOverTheSeed() throws {
        let stored = try StateSnapshot(
            json: JSON.parse(
                #"{"projects": [{"key": "kept", "rules": [{"id": "r7", "type": "optional_update", "below": "1.0"}]}]}"#
            )
        )
        let h = try Harness(store: MemoryStateStore(initial: stored))
        #expect(h.get("/admin/projects")["projects"]?.arrayValue?.map { $0["key"] } == ["kept"])
        #expect(h.post("/admin/projects/kept/rules", #"{"type": "optional_update", "below": "2.0"}"#)["id"] == "r8")
    }
}

@Suite struct StateEndpointTests {
    @Test func exportImportRoundTrips() throws {
        let h = try Harness()
        _ = h.put("/admin/projects/shop", #"{"apns_topic": "dev.shop"}"#)
        _ = h.post("/admin/projects/shop/rules", #"{"type": "required_update", "below": "2.0"}"#)
        _ = h.put("/v1/projects/shop/push-tokens/t1", #"{"platform": "android"}"#)
        _ = h.post("/v1/projects/shop/ingest/surveys", "[1]")
        let exported = h.get("/admin/state")
        #expect(exported.status == 200)
        let snapshot = try #require(exported.json)

        let other = try Harness()
        let imported = other.call("PUT", "/admin/state", body: exported.text)
        #expect(imported.status == 200)
        #expect(imported.json == snapshot)
        #expect(other.get("/admin/projects/shop/changes")["changes"]?.arrayValue?.count == 1)
        #expect(other.get("/admin/projects/shop/pushes")["pushes"]?.arrayValue?.count == 1)
        #expect(other.check("platform=ios&version=1.0", project: "shop")["lifetime"] == 60, "the change log came along")
        #expect(other.post("/admin/projects/shop/rules", #"{"type": "optional_update", "below": "3.0"}"#)["id"] == "r2")
    }

    @Test func aBadSnapshotChangesNothing() throws {
        let h = try Harness()
        let response = h.call(
            "PUT",
            "/admin/state",
            body: #"{"projects": [{"key": "x", "rules": [{"type": "maintenance"}]}]}"#
        )
        #expect(response.status == 422)
        #expect(response.firstPointer?.hasPrefix("/projects/0/rules/0/") == true)
        #expect(h.call("PUT", "/admin/state", body: #"{"projects": 3}"#).status == 400)
        #expect(h.get("/admin/projects")["projects"]?.arrayValue?.map { $0["key"] } == ["demo"])
    }
}
