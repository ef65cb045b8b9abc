import Foundation
import HTTP
import JSON
import TestSupport
import Testing

/// The built `lerix-mock` binary: `push-gateway` on its own, and `serve` delivering to it.
@Suite(.serialized) struct PushGatewayCommandTests {
    static let token = String(repeating: "ab", count: 32)

    func json(_ response: HTTPResponse) -> JSON { (try? JSON.parse(response.body)) ?? .null }

    func post(
        _ client: TestHTTPClient,
        _ target: String,
        _ body: String,
        headers: HTTPHeaders = [:]
    ) throws -> HTTPResponse {
        var all = headers
        all.add("Content-Type", "application/json")
        return try client.send(HTTPRequest(method: "POST", target: target, headers: all, body: Array(body.utf8)))
    }

    @Test func pushGatewayAcceptsRecordsAndRejectsOverHTTP1() throws {
        let gateway = try ServerProcess.start(["push-gateway", "--port", "0", "--quiet"])
        defer { _ = gateway.stop() }
        #expect(gateway.firstLine.hasPrefix("listening on http://127.0.0.1:"))
        let client = try TestHTTPClient(port: gateway.port)
        let apnsHeaders: HTTPHeaders = [
            "apns-topic": "dev.lerix.demo", "apns-push-type": "background", "apns-priority": "5",
        ]
        let body = #"{"aps":{"content-available":1},"lerix":{"kind":"release_control"}}"#
        #expect(try post(client, "/3/device/\(Self.token)", body, headers: apnsHeaders).status == 200)
        let deliveries = json(try client.send(HTTPRequest(method: "GET", target: "/deliveries")))
        #expect(deliveries["deliveries"]?.arrayValue?.first?["token"]?.stringValue == Self.token)
        #expect(try post(client, "/control/reject", #"{"token":"\#(Self.token)","status":410}"#).status == 204)
        let gone = try post(client, "/3/device/\(Self.token)", body, headers: apnsHeaders)
        #expect(gone.status == 410)
        #expect(json(gone)["reason"]?.stringValue == "Unregistered")
    }

    @Test func allowHostNamesTheGatewaysControlsAnswerTo() throws {
        let gateway = try ServerProcess.start([
            "push-gateway", "--port", "0", "--quiet", "--allow-host", "push-gateway",
        ])
        defer { _ = gateway.stop() }
        let client = try TestHTTPClient(port: gateway.port)
        func status(_ method: String, _ target: String, _ headers: HTTPHeaders, body: String = "") throws -> Int {
            try client.send(HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)))
                .status
        }
        #expect(try status("GET", "/control", ["Host": "push-gateway:8090"]) == 200)
        #expect(try status("GET", "/deliveries", ["Host": "rebound.example:8090"]) == 403)
        #expect(
            try status("POST", "/control/delay", ["Content-Type": "text/plain"], body: #"{"milliseconds":5}"#) == 415
        )
        let badName = try ServerProcess.run(["push-gateway", "--port", "0", "--allow-host", "gw:8090"])
        #expect(badName.status == 2)
        #expect(badName.stderr.contains("--allow-host takes a host name without port"))
    }

    @Test func badFlagsAndGatewayURLsStopTheStartWithAMessage() throws {
        let badPort = try ServerProcess.run(["push-gateway", "--port", "x"])
        #expect(badPort.status == 2)
        #expect(badPort.stderr.contains("--port needs a number"))
        let ftp = try ServerProcess.run(["serve", "--port", "0", "--apns-gateway", "ftp://api.push.apple.com"])
        #expect(ftp.status != 0)
        #expect(ftp.stderr.contains("expected http:// or https://"), "\(ftp.stderr)")
        let ca = try ServerProcess.run([
            "serve", "--port", "0", "--apns-gateway", "https://127.0.0.1:1", "--tls-ca", "/nonexistent/ca.pem",
        ])
        #expect(ca.status != 0)
        #expect(ca.stderr.contains("--tls-ca file '/nonexistent/ca.pem' cannot be opened"), "\(ca.stderr)")
    }

    @Test func serveDeliversABlockingChangesPushThroughThePushGateway() throws {
        let gateway = try ServerProcess.start(["push-gateway", "--port", "0", "--quiet"])
        defer { _ = gateway.stop() }
        let gatewayClient = try TestHTTPClient(port: gateway.port)
        #expect(try post(gatewayClient, "/control/reject", #"{"token":"fcm-gone","status":404}"#).status == 204)
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString).json")
        try Data(
            #"""
            {"projects": [{"key": "demo", "apns_topic": "dev.lerix.demo", "fcm_project": "demo-fcm", "rules": [],
              "push_tokens": [{"token": "\#(Self.token)", "platform": "ios"},
                              {"token": "fcm-ok", "platform": "android"},
                              {"token": "fcm-gone", "platform": "android"}]}]}
            """#.utf8
        ).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let url = "http://127.0.0.1:\(gateway.port)"
        let server = try ServerProcess.start([
            "serve", "--port", "0", "--quiet", "--config", config.path,
            "--apns-gateway", url, "--fcm-gateway", url,
        ])
        defer { _ = server.stop() }
        let client = try TestHTTPClient(port: server.port)
        let rule =
            #"{"type":"required_update","platforms":["ios","android"],"below":"2.0.0","store_url":"https://example.com","message":"update"}"#
        #expect(try post(client, "/admin/projects/demo/rules", rule).status == 201)
        var push: JSON = .null
        for _ in 0..<3000 {
            push =
                json(try client.send(HTTPRequest(method: "GET", target: "/admin/projects/demo/pushes")))["pushes"]?
                .arrayValue?.last ?? .null
            if push["pending"]?.intValue == 0 { break }
            usleep(10_000)
        }
        #expect(push["pending"]?.intValue == 0)
        #expect(push["delivered"]?.intValue == 2)
        let resultsURL = try #require(push["results_url"]?.stringValue)
        let failed = json(try client.send(HTTPRequest(method: "GET", target: resultsURL + "?result=unregistered")))
        let gone = failed["results"]?.arrayValue?.first { $0["token"]?.stringValue == "fcm-gone" }
        #expect(gone?["result"]?.stringValue == "unregistered")
        #expect(gone?["reason"]?.stringValue == "404 UNREGISTERED: Requested entity was not found.")
        let tokens = json(try client.send(HTTPRequest(method: "GET", target: "/admin/projects/demo/push-tokens")))
        #expect(tokens["push_tokens"]?.arrayValue?.contains { $0["token"]?.stringValue == "fcm-gone" } == false)
        let deliveries = json(try gatewayClient.send(HTTPRequest(method: "GET", target: "/deliveries")))
        #expect(
            Set(deliveries["deliveries"]?.arrayValue?.compactMap { $0["token"]?.stringValue } ?? []) == [
                Self.token, "fcm-ok",
            ]
        )
    }
}
