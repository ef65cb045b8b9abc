import JSON
import Testing

@testable import MockServer

/// A check finds its project where the last check of it found it, until a write comes between:
/// projects added (the table grows and moves them), replaced, imported away, reset.
@Suite struct CheckedProjectTests {
    /// The project a 200 names, or the status when it is not a 200.
    static func answered(_ h: Harness, _ project: String) -> String {
        let response = h.check("platform=ios", project: project)
        return response.status == 200 ? response["project"]?.stringValue ?? "?" : "\(response.status)"
    }

    @Test func aCheckFindsItsProjectWhateverWritesCameBetween() throws {
        let h = try Harness()
        #expect(Self.answered(h, "demo") == "demo")
        // Enough new projects to grow the table several times, a check of each kind between.
        for n in 1...40 {
            #expect(h.put("/admin/projects/p\(n)", "").status < 300, "p\(n)")
            #expect(Self.answered(h, "demo") == "demo", "after p\(n)")
            #expect(Self.answered(h, "p\(n)") == "p\(n)")
            #expect(Self.answered(h, "p\(n + 1)") == "404", "p\(n + 1) before it exists")
        }
        #expect(h.post("/admin/projects/p7/rules", #"{"type": "required_update", "below": "9.0"}"#).status == 201)
        #expect(h.check("platform=ios&version=1.0", project: "p7")["required_update"]?["rule"] == "r1")
        #expect(h.put("/admin/state", #"{"projects": [{"key": "only"}]}"#).status < 300)
        #expect(Self.answered(h, "p7") == "404", "imported away")
        #expect(Self.answered(h, "only") == "only")
        #expect(Self.answered(h, "demo") == "404")
        #expect(h.post("/admin/reset", "").status < 300)
        #expect(Self.answered(h, "only") == "404", "reset away")
        #expect(Self.answered(h, "demo") == "demo")
    }

    @Test func theFoundPlaceIsForgottenAtEveryWriteThroughProjects() throws {
        var state = ServerState(journalCapacity: 10)
        let seeded = try Harness().server.state.withLock { $0.projects }
        let demo = try #require(seeded["demo"])
        state.projects["demo"] = demo
        #expect(state.updateProject("demo", { $0.stamp }) == demo.stamp)
        for n in 0..<100 { state.projects["k\(n)"] = demo }
        state.projects["demo"]?.stamp = 42
        #expect(state.updateProject("demo", { $0.stamp }) == 42)
        #expect(state.updateProject("k99", { $0.stamp }) == demo.stamp)
        state.projects["k99"] = nil
        #expect(state.updateProject("k99", { $0.stamp }) == nil)
        #expect(
            state.updateProject(
                "demo",
                { runtime -> UInt64 in
                    runtime.stamp = 7
                    return runtime.stamp
                }
            ) == 7
        )
        #expect(state.projects["demo"]?.stamp == 7, "changed in place")
    }
}
