import HTTP
import JSON
import TestSupport
import Testing

/// The README's curl walkthrough, step by step, against the real binary on an ephemeral port.
@Suite struct ServeWalkthroughTests {
    static let start = "2026-12-02T11:00:00.000Z"
    static let check = "/v1/projects/demo/release-control?platform=ios&version=2.3.0"

    @Test func readmeWalkthroughBlocksAnswers304sRelaxesTheLifetimeAndLiftsAll() throws {
        let server = try ServerProcess.start([
            "serve", "--port", "0", "--clock", "manual", "--start-time", Self.start, "--quiet",
        ])
        defer { server.stop() }
        let client = try TestHTTPClient(port: server.port)

        // No rules, nothing changed recently: an empty answer living 300 s.
        var response = try client.send(HTTPRequest(method: "GET", target: Self.check))
        #expect(response.status == 200)
        var body = try JSON.parse(response.body)
        #expect(body["project"] == "demo")
        #expect(body["required_update"] == .null)
        #expect(body["lifetime"] == 300)
        #expect(body["server_time"] == .string(Self.start))
        #expect(response.headers["Cache-Control"] == "private, max-age=300")
        #expect(response.headers["Lerix-Server-Time"] == Self.start)
        // Date reads the same (manual) clock as Lerix-Server-Time.
        #expect(response.headers["Date"] == "Wed, 02 Dec 2026 11:00:00 GMT")

        // Block iOS below 2.4.0.
        let rule =
            #"{"type": "required_update", "platforms": ["ios"], "below": "2.4.0", "store_url": "https://apps.apple.com/app/id1", "message": "Please update"}"#
        response = try client.send(
            HTTPRequest(
                method: "POST",
                target: "/admin/projects/demo/rules",
                headers: ["Content-Type": "application/json"],
                body: Array(rule.utf8)
            )
        )
        #expect(response.status == 201)
        let ruleId = try JSON.parse(response.body)["id"]?.stringValue
        #expect(ruleId != nil)

        response = try client.send(HTTPRequest(method: "GET", target: Self.check))
        body = try JSON.parse(response.body)
        #expect(body["required_update"]?["below"] == "2.4.0")
        #expect(body["required_update"]?["rule"] == ruleId.map(JSON.string))
        #expect(body["lifetime"] == 60)
        #expect(response.headers["Cache-Control"] == "private, max-age=60")
        let etag = try #require(response.headers["ETag"])
        #expect(etag.hasPrefix("W/\""))

        // The same state again with its ETag: 304, empty body, same headers.
        response = try client.send(HTTPRequest(method: "GET", target: Self.check, headers: ["If-None-Match": etag]))
        #expect(response.status == 304)
        #expect(response.body.isEmpty)
        #expect(response.headers["ETag"] == etag)
        #expect(response.headers["Cache-Control"] == "private, max-age=60")

        // Devices on 2.4.0 or without a version are not blocked.
        for target in [
            "/v1/projects/demo/release-control?platform=ios&version=2.4.0",
            "/v1/projects/demo/release-control?platform=ios",
            "/v1/projects/demo/release-control?platform=ios&version=",
        ] {
            let unblocked = try JSON.parse(try client.send(HTTPRequest(method: "GET", target: target)).body)
            #expect(unblocked["required_update"] == .null, "\(target)")
        }

        // Past the 30-minute window the lifetime relaxes; the state (and so the ETag) does not change.
        response = try client.send(
            HTTPRequest(method: "POST", target: "/admin/clock", body: Array(#"{"advance_seconds": 1800}"#.utf8))
        )
        #expect(response.status == 200)
        response = try client.send(HTTPRequest(method: "GET", target: Self.check, headers: ["If-None-Match": etag]))
        #expect(response.status == 304)
        #expect(response.headers["Cache-Control"] == "private, max-age=300")
        #expect(response.headers["Lerix-Server-Time"] == "2026-12-02T11:30:00.000Z")
        #expect(response.headers["Date"] == "Wed, 02 Dec 2026 11:30:00 GMT")

        // Lift all: one change that lifts the rule; the answer is empty again with a fresh 60 s lifetime.
        response = try client.send(HTTPRequest(method: "POST", target: "/admin/projects/demo/lift-all"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self).contains(ruleId ?? "?"))
        response = try client.send(HTTPRequest(method: "GET", target: Self.check, headers: ["If-None-Match": etag]))
        #expect(response.status == 200)
        body = try JSON.parse(response.body)
        #expect(body["required_update"] == .null)
        #expect(body["lifetime"] == 60)

        let changes = try JSON.parse(
            try client.send(HTTPRequest(method: "GET", target: "/admin/projects/demo/changes")).body
        )
        #expect(changes["changes"]?.arrayValue?.count == 2)

        let journal = try JSON.parse(
            try client.send(HTTPRequest(method: "GET", target: "/admin/requests?project=demo&limit=2")).body
        )
        #expect(journal["requests"]?.arrayValue?.count == 2)
    }

    @Test func errorsAreProblemJSONPointingAtTheField() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        defer { server.stop() }
        let client = try TestHTTPClient(port: server.port)
        let response = try client.send(
            HTTPRequest(
                method: "POST",
                target: "/admin/projects/demo/rules",
                body: Array(#"{"type": "required_update", "below": 7}"#.utf8)
            )
        )
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/problem+json") == true)
        let problem = try JSON.parse(response.body)
        #expect(problem["status"] == 400)
        #expect(problem["errors"]?.arrayValue?.first?["pointer"] == "/below")
    }

    @Test func healthIndexAndOpenAPIAnswer() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        defer { server.stop() }
        let client = try TestHTTPClient(port: server.port)
        #expect(try client.send(HTTPRequest(method: "GET", target: "/healthz")).status == 200)
        let index = try client.send(HTTPRequest(method: "GET", target: "/"))
        #expect(index.status == 200)
        #expect(String(decoding: index.body, as: UTF8.self).contains("/v1/projects/{project}/release-control"))
        let openapi = try JSON.parse(try client.send(HTTPRequest(method: "GET", target: "/openapi.json")).body)
        #expect(openapi["openapi"]?.stringValue?.hasPrefix("3.2") == true)
    }

    @Test func documentsRevalidateWithTheirETagWhileLiveStateAndErrorsAreNeverStored() throws {
        let server = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        defer { server.stop() }
        let client = try TestHTTPClient(port: server.port)
        for target in ["/", "/openapi.json"] {
            let document = try client.send(HTTPRequest(method: "GET", target: target))
            #expect(document.headers["Cache-Control"] == "max-age=60", "\(target)")
            #expect(document.headers["Date"] != nil, "\(target)")
            let etag = try #require(document.headers["ETag"], "\(target)")
            let again = try client.send(HTTPRequest(method: "GET", target: target, headers: ["If-None-Match": etag]))
            #expect(again.status == 304, "\(target)")
            #expect(again.body.isEmpty, "\(target)")
            #expect(again.headers["ETag"] == etag, "\(target)")
        }
        for target in [
            "/admin/projects", "/admin/projects/demo/rules", "/admin/state", "/admin/requests",
            "/admin/projects/demo/push-tokens", "/healthz", "/v1/projects/nope/release-control?platform=ios",
        ] {
            let live = try client.send(HTTPRequest(method: "GET", target: target))
            #expect(live.headers["Cache-Control"] == "no-store", "\(target)")
            #expect(live.headers["Date"] != nil, "\(target)")
            #expect(live.headers["ETag"] == nil, "\(target)")
        }
    }

    @Test func thePushGatewayDatesItsAnswersAndSaysHowToCacheThem() throws {
        let gateway = try ServerProcess.start(["push-gateway", "--port", "0", "--quiet"])
        defer { gateway.stop() }
        let client = try TestHTTPClient(port: gateway.port)
        let index = try client.send(HTTPRequest(method: "GET", target: "/"))
        #expect(index.headers["Cache-Control"] == "max-age=60")
        #expect(index.headers["ETag"] != nil)
        for target in ["/deliveries", "/stats", "/control", "/healthz", "/nowhere"] {
            let live = try client.send(HTTPRequest(method: "GET", target: target))
            #expect(live.headers["Cache-Control"] == "no-store", "\(target)")
            #expect(live.headers["Date"]?.hasSuffix(" GMT") == true, "\(target)")
        }
    }
}
