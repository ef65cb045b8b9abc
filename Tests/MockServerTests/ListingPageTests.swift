import JSON
import Testing

/// Listings that grow with traffic answer one page at a time (issue 12, point 8).
@Suite struct ListingPageTests {
    /// Follows `next` links from `start`; the items of every page, and how many pages.
    static func walk(_ harness: Harness, _ start: String, key: String, id: String) -> (ids: [String], pages: Int) {
        var ids: [String] = []
        var target: String? = start
        var pages = 0
        while let t = target, pages < 50 {
            let page = harness.get(t)
            guard page.status == 200 else { return (ids + ["status \(page.status)"], pages) }
            ids +=
                page[key]?.arrayValue?.compactMap { item in item[id].map { $0.stringValue ?? $0.serializedString } }
                ?? []
            target = page["next"]?.stringValue
            pages += 1
        }
        return (ids, pages)
    }

    @Test func changesPushesAndTokensArePagedWithNextLinks() throws {
        let harness = try Harness()
        for i in 0..<7 {
            #expect(harness.put("/v1/projects/demo/push-tokens/tok-\(i)", #"{"platform": "ios"}"#).status == 204)
        }
        #expect(harness.delete("/v1/projects/demo/push-tokens/tok-3").status == 204)
        for i in 0..<5 {
            #expect(
                harness.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "\#(i + 1).0.0"}"#)
                    .status == 201
            )
            harness.advance(seconds: 61)  // each blocking change pushes at once
        }
        let changes = Self.walk(harness, "/admin/projects/demo/changes?limit=2", key: "changes", id: "id")
        #expect(changes.ids == ["1", "2", "3", "4", "5"])
        #expect(changes.pages == 3)
        let pushes = Self.walk(harness, "/admin/projects/demo/pushes?limit=2", key: "pushes", id: "id")
        #expect(pushes.ids == ["1", "2", "3", "4", "5"])
        let tokens = Self.walk(harness, "/admin/projects/demo/push-tokens?limit=3", key: "push_tokens", id: "token")
        #expect(tokens.ids == ["tok-0", "tok-1", "tok-2", "tok-4", "tok-5", "tok-6"])
        #expect(tokens.pages == 2)

        let whole = harness.get("/admin/projects/demo/changes")
        #expect(whole["changes"]?.arrayValue?.count == 5)
        #expect(whole["next"] == .null)
    }

    @Test func theDefaultPageIsBoundedAndLimitsAreChecked() throws {
        let harness = try Harness()
        for i in 0..<1005 {
            #expect(harness.put("/v1/projects/demo/push-tokens/t\(i)", #"{"platform": "android"}"#).status == 204)
        }
        let first = harness.get("/admin/projects/demo/push-tokens")
        #expect(first["push_tokens"]?.arrayValue?.count == 1000)
        #expect(first["next"] == "/admin/projects/demo/push-tokens?after=1000&limit=1000")
        #expect(harness.get("/admin/projects/demo/push-tokens?after=1000")["push_tokens"]?.arrayValue?.count == 5)
        for bad in ["limit=0", "limit=10001", "limit=two", "after=-5"] {
            let answer = harness.get("/admin/projects/demo/changes?" + bad)
            #expect(answer.status == 422, "\(bad)")
            #expect(answer.json?["errors"]?.arrayValue?.first?["parameter"] != nil)
        }
    }
}
