import MockServer
import ReleaseControl
import Testing

@testable import Push

/// `serve`'s sink, re-pointed by `PUT /admin/push-gateways`: only at loopback gateways.
@Suite struct RedirectableGatewayPushSinkTests {
    typealias Pushes = GatewayPushSinkTests

    @Test func withoutGatewaysTokensAreNoGatewayAndARedirectDeliversToTheNewOne() throws {
        let sink = try RedirectableGatewayPushSink(configuration: .init())
        defer { sink.shutdown() }
        let token = Pushes.hexToken(7)
        let before = Pushes.Collector(expected: 1)
        sink.deliver(Pushes().push([PushTarget(token: token, platform: .ios)]), completion: before.completion)
        #expect(before.wait()?[token] == .noGateway)

        let harness = try Pushes.Harness()
        defer { harness.stop() }
        try sink.redirect(to: PushGatewayURLs(apns: harness.url.description, fcm: nil))
        #expect(sink.gateways == PushGatewayURLs(apns: harness.url.description, fcm: nil))
        let after = Pushes.Collector(expected: 2)
        sink.deliver(
            Pushes().push(
                [PushTarget(token: token, platform: .ios), PushTarget(token: "fcm-1", platform: .android)],
                id: 2
            ),
            completion: after.completion
        )
        let results = after.wait()
        #expect(results?[token] == .delivered && results?["fcm-1"] == .noGateway, "\(String(describing: results))")
        #expect(harness.gateway.deliveries.map(\.token) == [token])
    }

    @Test(arguments: [
        "https://api.push.apple.com", "http://10.0.0.1:8090", "http://127.0.0.1.example.com:80", "ftp://127.0.0.1:21",
        "HTTP://127.0.0.1:9", "http://127.0.0.1:9/base", "http://127.0.0.01:9", "http://127.0.0.1:0",
        "http://127.0.0.1:08080",
        "http://[::2]:9",
    ])
    func onlyLoopbackGatewaysAreTaken(_ url: String) throws {
        let sink = try RedirectableGatewayPushSink(configuration: .init())
        #expect(throws: PushRedirectRefusal.self) { try sink.redirect(to: PushGatewayURLs(apns: nil, fcm: url)) }
        #expect(sink.gateways == PushGatewayURLs())
    }

    @Test(arguments: ["http://127.0.0.1:24100", "https://localhost:9443/", "http://[::1]:8090", "http://127.255.0.9"])
    func loopbackGatewaysAreTaken(_ url: String) throws {
        let sink = try RedirectableGatewayPushSink(configuration: .init())
        defer { sink.shutdown() }
        try sink.redirect(to: PushGatewayURLs(apns: url, fcm: url))
        #expect(sink.gateways.apns != nil)
    }
}
