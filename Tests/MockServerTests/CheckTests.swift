import Clock
import HTTP
import JSON
import Testing

@testable import MockServer

@Suite struct CheckTests {
    @Test func platformIsRequiredAndMustBeKnown() throws {
        let h = try Harness()
        for query in ["", "version=1.0", "platform=", "platform=&version=1.0"] {
            let response = h.check(query)
            #expect(response.status == 422, "query \(query)")
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.firstPointer == "/platform")
            #expect(response["errors"]?.arrayValue?.first?["parameter"] == "platform")
        }
        let unknown = h.check("platform=windows")
        #expect(unknown.status == 422)
        #expect(unknown["detail"]?.stringValue?.contains("windows") == true)
    }

    @Test func unknownProjectIs404() throws {
        let h = try Harness()
        let response = h.check("platform=ios", project: "ghost")
        #expect(response.status == 404)
        #expect(response["detail"]?.stringValue?.contains("ghost") == true)
    }

    @Test func emptyValuesCountAsAbsent() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "9.0"}"#)
        #expect(h.check("platform=ios&version=").json?["required_update"] == .null, "no version matches no update rule")
        #expect(h.check("platform=ios&version=1.0")["required_update"]?["rule"] == "r1")
    }

    @Test func ifNoneMatchListsAndStarGive304() throws {
        let h = try Harness()
        let etag = try #require(h.check("platform=ios").header("ETag"))
        #expect(h.check("platform=ios", ifNoneMatch: "*").status == 304)
        #expect(h.check("platform=ios", ifNoneMatch: "W/\"x\", \(etag)").status == 304)
        #expect(h.check("platform=ios", ifNoneMatch: "W/\"x\"").status == 200)
    }

    @Test func aChangeInvalidatesTheCachedAnswer() throws {
        let h = try Harness()
        let first = h.check("platform=ios&version=1.0")
        _ = h.post("/admin/projects/demo/rules", #"{"type": "optional_update", "below": "2.0"}"#)
        let second = h.check("platform=ios&version=1.0", ifNoneMatch: first.header("ETag"))
        #expect(second.status == 200)
        #expect(second["optional_update"]?["rule"] == "r1")
        #expect(second.header("ETag") != first.header("ETag"))
    }

    @Test func timePassingValidUntilInvalidatesTheCachedAnswer() throws {
        let h = try Harness(
            seed: StateSnapshot(
                json: JSON.parse(
                    """
                    {"projects": [{"key": "demo", "rules": [{"type": "maintenance", "starts_at": "2026-12-02T13:00:00.000Z",
                      "ends_at": "2026-12-02T14:00:00.000Z", "message": "upgrade"}]}]}
                    """
                )
            )
        )
        let early = h.check("platform=web")
        #expect(early["lifetime"] == 300, "seeding is not a change and the window is two hours away")
        #expect(early["maintenance"]?.arrayValue?.count == 1)
        h.advance(seconds: 3600)
        let soon = h.check("platform=web", ifNoneMatch: early.header("ETag"))
        #expect(soon.status == 304, "same state")
        #expect(soon.header("Cache-Control") == "private, max-age=60", "the window starts within the hour")
        h.advance(seconds: 7200)
        let over = h.check("platform=web", ifNoneMatch: early.header("ETag"))
        #expect(over.status == 200)
        #expect(over["maintenance"]?.arrayValue?.isEmpty == true)
        #expect(over["lifetime"] == 300)
    }

    @Test func journalListsChecksNewestFirstWithLimitAndProject() throws {
        let h = try Harness(journalCapacity: 3)
        _ = h.put("/admin/projects/other", "")
        _ = h.check("platform=ios&version=1.0&build=7&sdk=swift&sdk_version=1.4.0")
        let etag = h.check("platform=android").header("ETag")
        _ = h.check("platform=android", ifNoneMatch: etag)
        _ = h.check("platform=web", project: "other")
        let all = h.get("/admin/requests")["requests"]?.arrayValue ?? []
        #expect(all.count == 3, "the ring holds the newest three")
        #expect(all.first?["project"] == "other")
        #expect(all[1]["status"] == 304)
        #expect(all[1]["etag"] == etag.map(JSON.string))
        #expect(all[2]["device"]?["platform"] == "android")
        #expect(all[2]["lifetime"] == 300)
        let limited = h.get("/admin/requests?limit=1")["requests"]?.arrayValue ?? []
        #expect(limited.count == 1)
        let demo = h.get("/admin/requests?project=demo")["requests"]?.arrayValue ?? []
        #expect(demo.count == 2)
        #expect(h.get("/admin/requests?limit=0").status == 422)
        #expect(h.get("/admin/requests?limit=x").status == 422)
    }

    @Test func journalCountsEveryCheckOfAProjectPastItsRingUntilReset() throws {
        let h = try Harness(journalCapacity: 2)
        _ = h.put("/admin/projects/other", "")
        for _ in 0..<5 { _ = h.check("platform=ios") }
        _ = h.check("platform=web", project: "other")
        _ = h.check("platform=windows")  // a 422: not a check the journal takes
        #expect(h.get("/admin/requests?project=demo")["requests"]?.arrayValue?.count == 1, "the ring holds two")
        #expect(h.server.checksJournaled(project: "demo") == 5)
        #expect(h.server.checksJournaled(project: "other") == 1)
        #expect(h.server.checksJournaled(project: "ghost") == 0)
        _ = h.post("/admin/reset", "")
        #expect(h.server.checksJournaled(project: "demo") == 0, "a reset starts the journal over")
    }

    @Test func journalCountsInterleavedProjectsEachByItself() throws {
        let h = try Harness()
        _ = h.put("/admin/projects/other", "")
        for project in ["demo", "other", "demo", "other", "other", "demo", "demo"] {
            _ = h.check("platform=ios", project: project)
        }
        #expect(h.server.checksJournaled(project: "demo") == 4)
        #expect(h.server.checksJournaled(project: "other") == 3)
    }

    @Test func journalEntriesShareTheirTargetsDeviceFieldsAndStayValues() throws {
        let read = CheckQueryMemo.Read(
            project: "demo",
            query: CheckQuery(HTTPRequest(method: "GET", target: "/x?platform=ios&version=2.3.1&sdk=swift")),
            device: .failure(Problem(status: 422, detail: "unused"))
        )
        let first = read.entry(at: Harness.start, project: "demo", status: 200)
        var second = read.entry(at: Harness.start, project: "demo", status: 304)
        #expect(first.device === second.device, "one value per request target, not one per check")
        second.version = "2.4.0"
        #expect(second.version == "2.4.0" && second.platform == "ios" && second.sdk == "swift")
        #expect(first.version == "2.3.1", "changing one entry leaves the others as they were")
        #expect(first != second)
        second.version = "2.3.1"
        second.status = 200
        #expect(first == second, "equal fields are equal entries, shared or not")
    }

    @Test func journalKeepsDeviceAttributes() throws {
        let h = try Harness()
        _ = h.check("platform=ios&version=2.3.1&build=412&sdk=swift&sdk_version=1.4.0")
        let entry = h.get("/admin/requests")["requests"]?.arrayValue?.first
        #expect(entry?["device"]?["version"] == "2.3.1")
        #expect(entry?["device"]?["build"] == "412")
        #expect(entry?["device"]?["sdk_version"] == "1.4.0")
        #expect(entry?["at"] == .string(Harness.start.rfc3339))
    }
}

@Suite struct CheckQueryTests {
    @Test func fastAndPercentDecodedQueriesReadTheSame() {
        let plain = CheckQuery(
            HTTPRequest(
                method: "GET",
                target: "/x?platform=ios&version=2.3.1&version=9&build=&sdk=swift&sdk_version=1.4.0&z"
            )
        )
        #expect(plain.platform == "ios")
        #expect(plain.version == "2.3.1", "the first of a repeated parameter wins")
        #expect(plain.build == nil, "empty counts as absent")
        #expect(plain.sdk == "swift")
        #expect(plain.sdkVersion == "1.4.0")
        let encoded = CheckQuery(
            HTTPRequest(method: "GET", target: "/x?platform=%69os&version=2.3.1-beta%2B7&build=a+b")
        )
        #expect(encoded.platform == "ios")
        #expect(encoded.version == "2.3.1-beta+7")
        #expect(encoded.build == "a b")
        #expect(CheckQuery(HTTPRequest(method: "GET", target: "/x")).platform == nil)
    }
}
