import Clock
import HTTP
import JSON
import Synchronization
import Testing

@testable import Push

/// push-gateway's controls and delivery log get serve's admin-API defence (issue 42): a page in a
/// browser on the same machine could otherwise reject every token or start an outage with a
/// `no-cors` `text/plain` fetch, clear the log, or read the delivered device tokens after
/// rebinding its own name to loopback.
@Suite struct GatewayCrossSiteTests {
    static let token = "3f1a9c0e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c0e2b4d6f8a0c2e4b6d8f0a"
    let clock = ManualScheduler(now: Instant(rfc3339: "2026-12-02T11:00:00.000Z")!)

    func send(
        _ gateway: PushGateway,
        _ method: String,
        _ target: String,
        body: String = "",
        headers: HTTPHeaders = [:]
    ) -> HTTPResponse {
        let box = Mutex<HTTPResponse?>(nil)
        gateway.respond(to: HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8))) {
            reply in
            if case .response(let r) = reply { box.withLock { $0 = r } }
        }
        return box.withLock { $0 } ?? HTTPResponse(status: 0)
    }

    /// A gateway holding one accepted APNs delivery.
    func gatewayWithADelivery(allowedHosts: [String] = []) -> PushGateway {
        let gateway = PushGateway(scheduler: clock, allowedHosts: allowedHosts)
        let box = Mutex<Int>(0)
        gateway.respond(to: APNsRequest.silentPush(token: Self.token, topic: "dev.lerix.demo")) { reply in
            if case .response(let r) = reply { box.withLock { $0 = r.status } }
        }
        #expect(box.withLock { $0 } == 200)
        return gateway
    }

    @Test(arguments: [
        "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
    ])
    func controlWritesTakeJSONOnly(type: String) {
        let gateway = gatewayWithADelivery()
        for (target, body) in [
            ("/control/reject", #"{"token":"\#(Self.token)","status":410}"#),
            ("/control/unavailable", #"{"status":503}"#),
            ("/control/delay", #"{"milliseconds":1000}"#),
        ] {
            let response = send(gateway, "POST", target, body: body, headers: ["Content-Type": type])
            #expect(response.status == 415, "\(target) with \(type)")
            #expect(response.headers["Accept-Post"] == "application/json")
            #expect(response.headers["Accept"] == nil, "Accept is a request field")
            #expect(response.headers["Content-Type"] == "application/problem+json")
        }
        #expect(gateway.controls == GatewayControls(), "no control was armed")
        let untyped = send(gateway, "POST", "/control/reject", body: #"{"token":"t","status":410}"#)
        #expect(untyped.status == 415, "a body without a type is what a form-less no-cors fetch can send")
        #expect(gateway.controls == GatewayControls())
    }

    @Test func writesFromAnotherOriginAreRefusedAndChangeNothing() {
        let gateway = gatewayWithADelivery()
        for headers: HTTPHeaders in [
            ["Host": "127.0.0.1:8081", "Origin": "http://127.0.0.1:9999"],
            ["Host": "localhost:8081", "Origin": "http://attacker.example"],
            ["Host": "127.0.0.1:8081", "Origin": "null"],
            ["Host": "127.0.0.1:8081", "Sec-Fetch-Site": "cross-site"],
            ["Host": "127.0.0.1:8081", "Sec-Fetch-Site": "same-site"],
        ] {
            var json = headers
            json.add("Content-Type", "application/json")
            #expect(
                send(gateway, "POST", "/control/unavailable", body: "{}", headers: json).status == 403,
                "\(headers)"
            )
            #expect(send(gateway, "DELETE", "/deliveries", headers: headers).status == 403, "\(headers)")
            #expect(send(gateway, "DELETE", "/control", headers: headers).status == 403, "\(headers)")
        }
        #expect(gateway.controls.outage == nil)
        #expect(gateway.deliveredCount == 1, "the log was not cleared")
    }

    @Test func aRebindingHostCannotReadTheTokens() {
        let gateway = gatewayWithADelivery()
        for host in ["attacker.example", "attacker.example:8081", "127.0.0.1.nip.io:8081"] {
            for target in ["/deliveries", "/control", "/stats", "/control/reject"] {
                let method = target == "/control/reject" ? "DELETE" : "GET"
                let response = send(gateway, method, target, headers: ["Host": host])
                #expect(response.status == 403, "\(method) \(target) Host: \(host)")
                #expect(!String(decoding: response.body, as: UTF8.self).contains(Self.token))
            }
        }
    }

    @Test func itsOwnToolsAndAllowedNamesStillWork() {
        let gateway = gatewayWithADelivery(allowedHosts: ["push-gateway"])
        for headers: HTTPHeaders in [
            [:],  // a test calling the responder directly
            ["Host": "127.0.0.1:8081"], ["Host": "localhost:8081"], ["Host": "[::1]:8081"],
            ["Host": "push-gateway:8090"], ["Host": "PUSH-GATEWAY"],
            ["Host": "127.0.0.1:8081", "Origin": "http://127.0.0.1:8081", "Sec-Fetch-Site": "same-origin"],
        ] {
            let list = send(gateway, "GET", "/deliveries", headers: headers)
            #expect(list.status == 200, "\(headers)")
            var json = headers
            json.add("Content-Type", "application/json; charset=utf-8")
            #expect(send(gateway, "POST", "/control/delay", body: #"{"milliseconds":0}"#, headers: json).status == 204)
            #expect(send(gateway, "DELETE", "/control/reject", headers: headers).status == 204, "no body, no type")
        }
        #expect(send(gateway, "GET", "/deliveries", headers: ["Host": "other:8090"]).status == 403)
    }

    @Test func providerEndpointsAndHealthStayOpen() {
        // serve reaches the gateway by whatever name its --apns-gateway URL has, as it reaches APNs.
        let gateway = PushGateway(scheduler: clock)
        var push = APNsRequest.silentPush(token: Self.token, topic: "dev.lerix.demo")
        push.headers.set("Host", "push-gateway:8090")
        let box = Mutex<Int>(0)
        gateway.respond(to: push) { reply in
            if case .response(let r) = reply { box.withLock { $0 = r.status } }
        }
        #expect(box.withLock { $0 } == 200)
        #expect(send(gateway, "GET", "/healthz", headers: ["Host": "attacker.example"]).status == 200)
    }
}
