import JSON
import Testing

@testable import MockServer

/// Writes that change a project's contents (a token registered or removed, a fault armed, a
/// push recorded) change it in place: no copy of the whole project, and the place a check
/// memoised stays good, since no project moved in the table.
@Suite struct ProjectInPlaceTests {
    @Test func registrationsChangeTheProjectInPlaceAndKeepTheCheckedPlace() throws {
        var state = ServerState(journalCapacity: 10)
        let seeded = try Harness().server.state.withLock { $0.projects }
        state.projects["demo"] = try #require(seeded["demo"])
        #expect(state.hasProject("demo"))
        #expect(!state.hasProject("nope"))
        #expect(state.updateProject("demo", { $0.tokens.count }) == 0)
        let token = StateSnapshot.Token(token: "aa11", platform: .ios, registeredAt: nil)
        #expect(state.updateProject("demo", { $0.upsert(token) }) != nil)
        #expect(state.updateProject("nope", { $0.upsert(token) }) == nil, "no project, nothing added")
        #expect(!state.hasProject("nope"))
        #expect(state.updateProject("demo", { $0.tokens.count }) == 1)
        #expect(state.projects["demo"]?.tokens["aa11"]?.token.platform == .ios, "written to the table")
        #expect(state.updateProject("demo", { $0.removeToken("aa11") }) != nil)
        #expect(state.projects["demo"]?.tokens.isEmpty == true)
    }

    @Test func registrationsBetweenChecksLeaveEveryAnswerAsBefore() throws {
        let h = try Harness()
        #expect(h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "9.0"}"#).status == 201)
        for n in 0..<20 {
            #expect(h.check("platform=ios&version=1.0")["required_update"]?["rule"] == "r1", "check \(n)")
            #expect(h.put("/v1/projects/demo/push-tokens/t\(n)", #"{"platform": "ios"}"#).status == 204)
            #expect(h.put("/v1/projects/ghost/push-tokens/t\(n)", #"{"platform": "ios"}"#).status == 404)
        }
        #expect(h.delete("/v1/projects/demo/push-tokens/t3").status == 204)
        #expect(h.delete("/v1/projects/ghost/push-tokens/t3").status == 404)
        let listed = h.get("/admin/projects/demo/push-tokens")["push_tokens"]?.arrayValue ?? []
        #expect(listed.compactMap { $0["token"]?.stringValue } == (0..<20).filter { $0 != 3 }.map { "t\($0)" })
        #expect(h.post("/admin/projects/demo/faults", #"{"kind": "status", "status": 503}"#).status == 200)
        #expect(h.post("/admin/projects/ghost/faults", #"{"kind": "status", "status": 503}"#).status == 404)
        #expect(h.delete("/admin/projects/demo/faults").status == 204)
        #expect(h.delete("/admin/projects/ghost/faults").status == 404)
        #expect(h.get("/admin/requests?project=ghost").status == 404)
        #expect(h.get("/admin/requests?project=demo").status == 200)
        #expect(h.check("platform=ios&version=1.0")["required_update"]?["rule"] == "r1")
    }

    @Test func aReadOfAProjectSeesItInPlaceOr404s() throws {
        let h = try Harness()
        #expect(h.put("/v1/projects/demo/push-tokens/aa11", #"{"platform": "ios"}"#).status == 204)
        #expect(try h.server.withProject("demo") { $0.tokens.count } == 1)
        #expect(throws: Problem.self) { try h.server.withProject("ghost") { $0.tokens.count } }
        #expect(h.get("/admin/projects/demo/push-tokens").status == 200)
        #expect(h.get("/admin/projects/ghost/push-tokens").status == 404)
        #expect(h.get("/admin/projects/ghost/faults").status == 404)
    }

    /// Two refused path parameters: the one first by name is the one reported, as when they
    /// were sorted.
    @Test func theFirstRefusedParameterByNameIsReported() {
        let both = MockServer.identifierProblem(["token": "a\u{1}b", "project": "p\u{7}"])
        #expect(both?.detail.hasPrefix("the project in the path") == true, "\(String(describing: both?.detail))")
        let tokenOnly = MockServer.identifierProblem(["token": "a\u{1}b", "project": "p"])
        #expect(tokenOnly?.detail.hasPrefix("the token in the path") == true)
        #expect(MockServer.identifierProblem(["token": "ab", "project": "p"]) == nil)
    }
}
