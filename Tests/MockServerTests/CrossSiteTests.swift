import HTTP
import JSON
import Testing

@testable import MockServer

/// A page in a browser on the same machine must not drive the admin API (issue 42 item 3): it
/// could create rules that push, start a recording, or reset a state file, with a `no-cors`
/// `text/plain` fetch, and read answers after rebinding its own name to loopback.
@Suite struct CrossSiteTests {
    static let rule =
        #"{"type": "maintenance", "starts_at": "2026-12-02T11:00:00Z", "ends_at": "2026-12-02T12:00:00Z"}"#

    @Test func aTextPlainRuleFromAnotherPageIsRefusedAndChangesNothing() throws {
        let h = try Harness()
        let response = h.call(
            "POST",
            "/admin/projects/demo/rules",
            body: Self.rule,
            headers: [("Host", "127.0.0.1:8080"), ("Content-Type", "text/plain;charset=UTF-8")]
        )
        #expect(response.status == 415)
        #expect(response.header("Accept-Post") == "application/json")
        #expect(response.header("Accept") == nil, "Accept is a request field")
        #expect(h.get("/admin/projects/demo/rules")["rules"] == [])
    }

    @Test(arguments: ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", ""])
    func everyAdminWriteTakesJSONOnly(type: String) throws {
        let h = try Harness()
        for (method, target, body) in [
            ("POST", "/admin/projects/demo/rules", Self.rule),
            ("PUT", "/admin/state", #"{"projects": []}"#),
            ("POST", "/admin/reset", ""),
            ("POST", "/admin/recording", "{}"),
        ] {
            let response = h.call(method, target, body: body, headers: [("Content-Type", type)])
            #expect(response.status == 415, "\(method) \(target) with \(type)")
            #expect(response.header("Accept-Post") == (method == "POST" ? "application/json" : nil))
        }
        #expect(h.get("/admin/projects")["projects"]?.arrayValue?.count == 1, "the state was not replaced")
    }

    @Test func jsonWithParametersAndBodylessWritesWithoutATypeStillWork() throws {
        let h = try Harness()
        let created = h.call(
            "POST",
            "/admin/projects/demo/rules",
            body: Self.rule,
            headers: [("Content-Type", "Application/JSON; charset=utf-8")]
        )
        #expect(created.status == 201)
        // curl -X POST …/lift-all sends no body and no type: nothing a form could forge either.
        #expect(h.call("POST", "/admin/projects/demo/lift-all").status == 200)
        #expect(h.call("DELETE", "/admin/projects/demo/faults").status == 204)
    }

    @Test func aCrossSiteResetIsRefused() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/rules", Self.rule)
        for headers in [
            [("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:9999")],
            [("Host", "localhost:8080"), ("Origin", "http://attacker.example")],
            [("Host", "127.0.0.1:8080"), ("Origin", "null")],
            [("Host", "127.0.0.1:8080"), ("Sec-Fetch-Site", "same-site")],
            [("Host", "127.0.0.1:8080"), ("Sec-Fetch-Site", "cross-site")],
        ] {
            let response = h.call("POST", "/admin/reset", headers: headers)
            #expect(response.status == 403, "\(headers)")
            #expect(response.json?["type"] == "about:blank")
        }
        #expect(h.get("/admin/projects/demo/rules")["rules"]?.arrayValue?.count == 1, "nothing was reset")
    }

    @Test func aRebindingHostCannotReadTheState() throws {
        let h = try Harness()
        for host in [
            "attacker.example", "attacker.example:8080", "127.0.0.1.nip.io:8080", "localhost.attacker.example",
        ] {
            let response = h.get("/admin/state", headers: [("Host", host)])
            #expect(response.status == 403, "\(host)")
            #expect(!response.text.contains("\"projects\""))
        }
    }

    @Test func itsOwnPagesAndToolsStillWork() throws {
        let h = try Harness()
        for headers in [
            [("Host", "127.0.0.1:8080")],
            [("Host", "localhost:8080")],
            [("Host", "[::1]:8080")],
            [("Host", "10.1.2.3")],
            // The dashboard at /ui: same origin, and the browser says so.
            [("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "same-origin")],
            [("Host", "localhost"), ("Origin", "http://localhost:80")],
            [("Host", "127.0.0.1:8443"), ("Origin", "https://127.0.0.1:8443")],
            // Typed into the address bar.
            [("Host", "127.0.0.1:8080"), ("Sec-Fetch-Site", "none")],
        ] {
            #expect(h.get("/admin/state", headers: headers).status == 200, "\(headers)")
            let created = h.call("POST", "/admin/projects/demo/rules", body: Self.rule, headers: headers)
            #expect(created.status == 201, "\(headers)")
        }
        #expect(h.check("platform=ios&version=1.0", project: "demo").status == 200, "the SDK endpoints are open")
    }

    @Test func anAllowedHostNameIsAnswered() throws {
        var options = MockServerOptions()
        options.allowedHosts = ["lerix-mock"]
        let server = try MockServer(options: options)
        func status(host: String) -> Int {
            let request = HTTPRequest(method: "GET", target: "/admin/projects", headers: HTTPHeaders([("Host", host)]))
            let box = Box()
            server.respond(to: request) { reply in
                if case .response(let response) = reply { box.status = response.status }
            }
            return box.status
        }
        #expect(status(host: "lerix-mock:8080") == 200)
        #expect(status(host: "LERIX-MOCK") == 200)
        #expect(status(host: "other:8080") == 403)
    }
}

private final class Box: @unchecked Sendable {
    var status = 0
}
