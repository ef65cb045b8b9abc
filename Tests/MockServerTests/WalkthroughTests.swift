import JSON
import Testing

@testable import MockServer

/// The README's curl walkthrough, step by step, against the responder.
@Suite struct WalkthroughTests {
    let required =
        #"{"type": "required_update", "platforms": ["ios"], "below": "2.4.0", "store_url": "https://apps.apple.com/app/id1", "message": "Please update"}"#

    @Test func requiredUpdateIsAppliedRenewedByA304AndLiftedAgain() throws {
        let h = try Harness()
        let before = h.check("platform=ios&version=2.3.1")
        #expect(before.status == 200)
        #expect(before["required_update"] == .null)
        #expect(before["lifetime"] == 300)

        let created = h.post("/admin/projects/demo/rules", required)
        #expect(created.status == 201)
        #expect(created.header("Location") == "/admin/projects/demo/rules/r1")
        #expect(created["id"] == "r1")

        let applied = h.check("platform=ios&version=2.3.1&build=77&sdk=swift&sdk_version=1.4.0")
        #expect(applied.status == 200)
        #expect(applied["required_update"]?["rule"] == "r1")
        #expect(applied["required_update"]?["below"] == "2.4.0")
        #expect(applied["lifetime"] == 60)
        #expect(applied["server_time"] == .string(Harness.start.rfc3339))
        #expect(applied.header("Cache-Control") == "private, max-age=60")
        #expect(applied.header("Lerix-Server-Time") == Harness.start.rfc3339)
        #expect(applied.header("Content-Type") == "application/json")
        let etag = try #require(applied.header("ETag"))
        #expect(etag.hasPrefix("W/\""))
        #expect(etag != before.header("ETag"))

        h.advance(seconds: 10)
        let notModified = h.check("platform=ios&version=2.3.1", ifNoneMatch: etag)
        #expect(notModified.status == 304)
        #expect(notModified.raw.body.isEmpty)
        #expect(notModified.header("ETag") == etag)
        #expect(notModified.header("Cache-Control") == "private, max-age=60")
        #expect(notModified.header("Lerix-Server-Time") == h.clock.now.rfc3339)

        h.advance(seconds: 1800)
        let later = h.check("platform=ios&version=2.3.1", ifNoneMatch: etag)
        #expect(later.status == 304, "the state did not change, only the lifetime")
        #expect(later.header("Cache-Control") == "private, max-age=300")

        let lifted = h.post("/admin/projects/demo/lift-all", "")
        #expect(lifted.status == 200)
        #expect(lifted["lifted"]?.arrayValue?.first?["id"] == "r1")
        #expect(lifted["change"]?["blocking"] == true)

        let after = h.check("platform=ios&version=2.3.1", ifNoneMatch: etag)
        #expect(after.status == 200)
        #expect(after["required_update"] == .null)
        #expect(after["lifetime"] == 60)
    }

    @Test func checkBodyIsCompactAndInContractOrder() throws {
        let h = try Harness()
        let response = h.check("platform=android")
        #expect(
            response.text.hasPrefix(
                #"{"project":"demo","server_time":"2026-12-02T11:00:00.000Z","lifetime":300,"required_update":null,"optional_update":null,"maintenance":[],"sdk_switch":[]}"#
            )
        )
    }

    @Test func answersAreCachedPerDeviceClassAndServerTimeIsFresh() throws {
        let h = try Harness()
        let a = h.check("platform=ios&version=1.0&build=1")
        h.advance(seconds: 5)
        let b = h.check("platform=ios&version=1.0&build=2")
        #expect(a.header("ETag") == b.header("ETag"))
        #expect(b["server_time"] == .string(h.clock.now.rfc3339))
        let cached = h.server.state.withLock { $0.projects["demo"]?.cache.count }
        #expect(cached == 1, "the build does not split the cache")
    }
}
