import Foundation
import HTTP
import JSON
import Testing

@testable import MockServer

/// `GET /admin/events`: what happens on the server arrives as Server-Sent Events.
@Suite struct EventStreamTests {
    /// Opens the stream through the responder and returns it, or nil when it did not stream.
    func open(
        _ h: Harness,
        _ target: String = "/admin/events",
        headers: [(String, String)] = []
    ) -> (HTTPResponse, ResponseStream)? {
        guard case .stream(let head, let stream)? = h.send("GET", target, headers: headers) else { return nil }
        return (head, stream)
    }

    /// The events written so far, as (kind, data) pairs.
    func events(_ stream: ResponseStream) -> [(String, JSON)] {
        let text = String(decoding: stream.take().bytes, as: UTF8.self)
        return text.components(separatedBy: "\n\n").compactMap { block in
            var kind: String?
            var data: JSON?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { kind = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = try? JSON.parse(Array(line.dropFirst(6).utf8)) }
            }
            guard let kind, let data else { return nil }
            return (kind, data)
        }
    }

    @Test func opensWithHelloThenSendsChecksChangesPushesAndClockMoves() throws {
        let h = try Harness()
        let (head, stream) = try #require(open(h))
        #expect(head.status == 200)
        #expect(head.headers["Content-Type"] == "text/event-stream; charset=utf-8")
        #expect(head.headers["Cache-Control"] == "no-store")
        _ = h.check("platform=ios&version=1.0")
        #expect(h.post("/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#).status == 201)
        #expect(h.post("/admin/clock", #"{"advance_seconds": 60}"#).status == 200)
        let seen = events(stream)
        let kinds = seen.map(\.0)
        #expect(kinds.first == "hello")
        #expect(seen.first?.1["mode"]?.stringValue == "manual")
        #expect(seen.first?.1["projects"] == .array(["demo"]))
        for kind in ["check", "rule", "change", "push", "clock"] {
            #expect(kinds.contains(kind), "no \(kind) event in \(kinds)")
        }
        let check = try #require(seen.first { $0.0 == "check" }?.1)
        #expect(check["status"]?.intValue == 200)
        #expect(check["device"]?["version"]?.stringValue == "1.0")
        #expect(check["lifetime"]?.intValue == 300)
        #expect(check["etag"]?.stringValue?.isEmpty == false)
        #expect(seen.first { $0.0 == "change" }?.1["project"]?.stringValue == "demo")
        #expect(seen.first { $0.0 == "clock" }?.1["now"]?.stringValue == h.time(0))
    }

    @Test func aNotModifiedCheckAndAFaultedOneAreEventsToo() throws {
        let h = try Harness()
        let etag = try #require(h.check("platform=ios").header("ETag"))
        let (_, stream) = try #require(open(h, "/admin/events?kinds=check,fault"))
        _ = h.check("platform=ios", ifNoneMatch: etag)
        #expect(h.post("/admin/projects/demo/faults", #"{"kind": "status", "status": 503}"#).status == 200)
        _ = h.check("platform=ios")
        let seen = events(stream)
        #expect(seen.map(\.0) == ["check", "fault", "check"])
        #expect(seen[0].1["status"]?.intValue == 304)
        #expect(seen[1].1["faults"]?.arrayValue?.count == 1)
        #expect(seen[2].1["status"]?.intValue == 503)
    }

    @Test func filtersByProjectAndRefusesUnknownOnesAndUnknownKinds() throws {
        let h = try Harness()
        #expect(h.put("/admin/projects/other", "{}").status == 201)
        let (_, stream) = try #require(open(h, "/admin/events?project=other"))
        _ = h.check("platform=ios")  // demo: filtered out
        _ = h.check("platform=ios", project: "other")
        let seen = events(stream)
        #expect(seen.map(\.0) == ["hello", "check"])
        #expect(seen[1].1["project"]?.stringValue == "other")
        let unknown = h.get("/admin/events?project=nope")
        #expect(unknown.status == 404)
        let badKind = h.get("/admin/events?kinds=check,nonsense")
        #expect(badKind.status == 422)
        #expect(badKind.json?["detail"]?.stringValue?.contains("nonsense") == true)
        #expect(h.get("/admin/events?kinds=check,,fault").status == 422, "an empty kind is a typo, not every kind")
    }

    @Test func needsTheAdminTokenWhenTheServerHasOne() throws {
        let h = try Harness(adminToken: "s3cret")
        #expect(h.get("/admin/events").status == 401)
        #expect(open(h, headers: [("Authorization", "Bearer s3cret")]) != nil)
    }

    @Test func aStreamThatEndsIsForgottenAndPublishingWithoutListenersCostsNothing() throws {
        let h = try Harness()
        let (_, stream) = try #require(open(h))
        #expect(h.server.feed.subscriberCount == 1)
        stream.end()  // what the transport does when the client goes away
        #expect(h.server.feed.subscriberCount == 0)
        #expect(!h.server.feed.isWatched)
        _ = h.check("platform=ios")
        #expect(stream.take().bytes.isEmpty)
    }

    @Test func aSubscriberThatFallsBehindIsDroppedAtItsBound() throws {
        let h = try Harness()
        let (_, stream) = try #require(open(h))
        // Nobody takes from the stream: after ~256 KiB of checks it ends instead of growing.
        for _ in 0..<2000 { _ = h.check("platform=ios&version=1.0") }
        #expect(!stream.isOpen)
        #expect(stream.take().ending == .overflowed)
        stream.end()
        #expect(h.server.feed.subscriberCount == 0)
    }

    @Test func theDashboardIsServedWithItsAssetsAndAStrictPolicy() throws {
        let h = try Harness()
        let page = h.get("/ui")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        #expect(page.text.contains("/ui/dashboard.js"))
        #expect(h.get("/ui/dashboard.js").header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(h.get("/ui/dashboard.css").status == 200)
        #expect(h.get("/ui/nope.js").status == 404)
        for asset in ["/ui", "/ui/dashboard.js", "/ui/dashboard.css"] {
            // The SVG namespace is a name, never fetched; any other absolute URL would be.
            let text = h.get(asset).text.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
            #expect(
                !text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"),
                "\(asset) names an outside URL"
            )
        }
    }
}
