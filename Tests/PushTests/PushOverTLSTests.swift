import Clock
import Foundation
import HTTP
import HTTPServer
import JSON
import MockServer
import ProviderAuth
import ReleaseControl
import Synchronization
import TLS
import TestSupport
import Testing

@testable import Push

/// The whole push loop over TLS on loopback: GatewayPushSink → https (ALPN h2) → PushGateway,
/// with APNs provider tokens and FCM OAuth, checked by the stand-in as the providers check them.
@Suite(.serialized) struct PushOverTLSTests {
    typealias Collector = GatewayPushSinkTests.Collector

    /// Lets the test start the server (and learn its port) before the gateway, whose service
    /// account must name that port in its token_uri.
    final class LateResponder: Responder, @unchecked Sendable {
        let target = Mutex<PushGateway?>(nil)
        func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
            guard let gateway = target.withLock({ $0 }) else { return reply(.response(HTTPResponse(status: 503))) }
            gateway.respond(to: request, reply: reply)
        }
    }

    struct Setup {
        let files: TestCertificates
        let server: HTTPServer
        let port: Int
        let gateway: PushGateway
        let apnsKey: PrivateKey
        let account: ServiceAccount

        /// `apnsPublicKey`: what the stand-in verifies with (the right key unless a test says otherwise).
        init(apnsPublicKey: PublicKey? = nil, gatewayAccountKey: PrivateKey? = nil) throws {
            files = try TestCertificates.make()
            let tls = try TLSContext.server(
                certificateFile: files.certificate,
                keyFile: files.key,
                now: TestCertificates.now
            )
            let late = LateResponder()
            server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, tls: tls), responder: late)
            let port = try server.start()
            self.port = port
            apnsKey = try PrivateKey.generateP256()
            let tokenURI = "https://localhost:\(port)/token"
            let account = try ServiceAccount(
                json: Self.serviceAccountJSON(key: try PrivateKey.generateRSA(), tokenURI: tokenURI)
            )
            self.account = account
            let gatewayAccount =
                try gatewayAccountKey.map {
                    try ServiceAccount(json: Self.serviceAccountJSON(key: $0, tokenURI: tokenURI))
                } ?? account
            let gateway = PushGateway(
                scheduler: SystemScheduler(),
                authentication: .init(
                    apns: try APNsTokenCheck(publicKey: apnsPublicKey ?? apnsKey.publicKey()),
                    fcm: try FCMTokenIssuer(account: gatewayAccount)
                )
            )
            self.gateway = gateway
            late.target.withLock { $0 = gateway }
        }

        static func serviceAccountJSON(key: PrivateKey, tokenURI: String) throws -> [UInt8] {
            JSON.object(
                JSONObject([
                    ("type", "service_account"), ("project_id", "demo-fcm"), ("private_key_id", "k1"),
                    ("private_key", .string(String(decoding: try key.pem(), as: UTF8.self))),
                    ("client_email", "push@demo-fcm.iam.gserviceaccount.com"), ("token_uri", .string(tokenURI)),
                ])
            ).serialized()
        }

        func sink(auth: Bool = true) throws -> GatewayPushSink {
            let url = HTTPURL(scheme: .https, host: "localhost", port: port)
            var configuration = GatewayPushSink.Configuration(apnsGateway: url, fcmGateway: url)
            configuration.retry = RetryPolicy(
                maxAttempts: 2,
                initialBackoffMilliseconds: 10,
                maxBackoffMilliseconds: 20
            )
            configuration.tls = try TLSContext.client(trustingAlso: files.authority, alpn: ["h2"])
            if auth {
                configuration.apnsAuth = try APNsProviderToken(key: apnsKey, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
                configuration.fcmAuth = FCMAccessToken(account: account)
            }
            return try GatewayPushSink(configuration: configuration)
        }

        func stop() {
            server.stop(graceful: false)
            files.remove()
        }
    }

    func push(_ targets: [PushTarget]) -> OutgoingPush {
        OutgoingPush(id: 1, project: "demo", apnsTopic: "dev.lerix.demo", fcmProject: "demo-fcm", tokens: targets)
    }

    func targets(apns: Int, fcm: Int) -> [PushTarget] {
        (0..<apns).map { PushTarget(token: GatewayPushSinkTests.hexToken($0), platform: .ios) }
            + (0..<fcm).map { PushTarget(token: "fcm-\($0)", platform: .android) }
    }

    @Test func everyTokenIsDeliveredOverTLSWithBothKindsOfProviderAuth() throws {
        let setup = try Setup()
        defer { setup.stop() }
        let sink = try setup.sink()
        defer { sink.shutdown() }
        let all = targets(apns: 30, fcm: 30)
        let collector = Collector(expected: all.count)
        sink.deliver(push(all), completion: collector.completion)
        let results = try #require(collector.wait())
        #expect(results.values.filter { $0 == .delivered }.count == 60, "\(Set(results.values.map { "\($0)" }))")
        #expect(setup.gateway.deliveredCount == 60)
        // One access token served every FCM send; the connections spoke HTTP/2 over TLS.
        #expect(sink.statistics(.fcm)?.accessTokensFetched == 1)
        #expect(sink.statistics(.apns)?.connectionsOpened ?? 0 >= 1)
    }

    @Test func aWrongAPNsKeyGivesInvalidProviderTokenAsEachTokensResult() throws {
        let setup = try Setup(apnsPublicKey: try PrivateKey.generateP256().publicKey())
        defer { setup.stop() }
        let sink = try setup.sink()
        defer { sink.shutdown() }
        let collector = Collector(expected: 3)
        sink.deliver(push(targets(apns: 3, fcm: 0)), completion: collector.completion)
        let results = try #require(collector.wait())
        #expect(results.count == 3)
        #expect(results.values.allSatisfy { $0 == .failed(reason: "403 InvalidProviderToken") }, "\(results)")
        #expect(setup.gateway.deliveredCount == 0)
    }

    @Test func aWrongServiceAccountKeyGivesTheTokenEndpointsRefusalAsEachTokensResult() throws {
        let setup = try Setup(gatewayAccountKey: try PrivateKey.generateRSA())
        defer { setup.stop() }
        let sink = try setup.sink()
        defer { sink.shutdown() }
        let collector = Collector(expected: 2)
        sink.deliver(push(targets(apns: 0, fcm: 2)), completion: collector.completion)
        let results = try #require(collector.wait())
        let expected =
            "FCM access token refused: the token endpoint https://localhost:\(setup.port)/token answered 400 invalid_grant: Invalid JWT Signature."
        #expect(results.values.allSatisfy { $0 == .failed(reason: expected) }, "\(results)")
    }

    @Test func withoutAuthTheStandInAnswersAsTheProvidersDo() throws {
        let setup = try Setup()
        defer { setup.stop() }
        let sink = try setup.sink(auth: false)
        defer { sink.shutdown() }
        let collector = Collector(expected: 2)
        sink.deliver(push(targets(apns: 1, fcm: 1)), completion: collector.completion)
        let results = try #require(collector.wait())
        #expect(results[GatewayPushSinkTests.hexToken(0)] == .failed(reason: "403 MissingProviderToken"))
        #expect(
            results["fcm-0"]
                == .failed(
                    reason:
                        "401 UNAUTHENTICATED: Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
                )
        )
    }

    @Test func aGatewayWhoseCertificateIsNotTrustedFailsWithTheReason() throws {
        let setup = try Setup()
        defer { setup.stop() }
        let url = HTTPURL(scheme: .https, host: "localhost", port: setup.port)
        var configuration = GatewayPushSink.Configuration(apnsGateway: url, fcmGateway: nil)
        configuration.retry = RetryPolicy(maxAttempts: 1, initialBackoffMilliseconds: 10, maxBackoffMilliseconds: 20)
        configuration.tls = try TLSContext.client(alpn: ["h2"])
        let sink = try GatewayPushSink(configuration: configuration)
        defer { sink.shutdown() }
        let collector = Collector(expected: 1)
        sink.deliver(push(targets(apns: 1, fcm: 0)), completion: collector.completion)
        let results = try #require(collector.wait())
        guard case .failed(let reason)? = results.values.first else {
            Issue.record("expected a failure, got \(results)")
            return
        }
        #expect(reason.contains("certificate was not accepted: unable to get local issuer certificate"), "\(reason)")
    }
}
