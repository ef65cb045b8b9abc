import Clock
import Dispatch
import HTTP
import HTTPServer
import MockServer
import ReleaseControl
import Synchronization
import TestSupport
import Testing

@testable import Push

#if canImport(Glibc)
import Glibc
#endif

/// GatewayPushSink → PushGateway in-process, over h2c on real sockets (port 0).
@Suite(.serialized) struct GatewayPushSinkTests {
    static func hexToken(_ n: Int) -> String {
        let digits = String(n, radix: 16)
        return String(repeating: "0", count: 64 - digits.count) + digits
    }

    /// Collects a push's batched results until every token is reported (or a generous guard passes).
    final class Collector: @unchecked Sendable {
        private let lock = Mutex<[TokenDelivery]>([])
        private let done = DispatchSemaphore(value: 0)
        let expected: Int
        init(expected: Int) { self.expected = expected }

        var completion: @Sendable ([TokenDelivery]) -> Void {
            { [self] batch in
                let complete = lock.withLock { all -> Bool in
                    all.append(contentsOf: batch)
                    return all.count >= expected
                }
                if complete { done.signal() }
            }
        }

        /// The results once all are in; nil when the guard ran out first.
        func wait(seconds: Int = 30) -> [String: DeliveryResult]? {
            guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
            var results: [String: DeliveryResult] = [:]
            for d in lock.withLock({ $0 }) { results[d.token] = d.result }
            return results
        }
    }

    struct Harness {
        let gateway: PushGateway
        let server: HTTPServer
        let url: HTTPURL

        init(scheduler: any Scheduler = SystemScheduler()) throws {
            gateway = PushGateway(scheduler: scheduler)
            server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: gateway)
            let port = try server.start()
            url = HTTPURL(scheme: .http, host: "127.0.0.1", port: port)
        }

        func sink(
            _ configure: (inout GatewayPushSink.Configuration) -> Void = { _ in },
            retryScheduler: any Scheduler = SystemScheduler()
        ) throws -> GatewayPushSink {
            var configuration = GatewayPushSink.Configuration(apnsGateway: url, fcmGateway: url)
            configuration.retry = RetryPolicy(
                maxAttempts: 3,
                initialBackoffMilliseconds: 10,
                maxBackoffMilliseconds: 50
            )
            configure(&configuration)
            return try GatewayPushSink(configuration: configuration, retryScheduler: retryScheduler)
        }

        func stop() { server.stop(graceful: false) }
    }

    func push(_ targets: [PushTarget], id: Int = 1) -> OutgoingPush {
        OutgoingPush(id: id, project: "demo", apnsTopic: "dev.lerix.demo", fcmProject: "demo-fcm", tokens: targets)
    }

    @Test func deliversEveryTokenAndReportsGoneTokensAsUnregistered() throws {
        let harness = try Harness()
        defer { harness.stop() }
        let sink = try harness.sink()
        defer { sink.shutdown() }
        var targets: [PushTarget] = []
        for i in 0..<60 { targets.append(PushTarget(token: Self.hexToken(i), platform: i % 3 == 0 ? .macos : .ios)) }
        for i in 0..<40 { targets.append(PushTarget(token: "fcm-\(i)", platform: .android)) }
        harness.gateway.reject(token: Self.hexToken(7), status: 410)
        harness.gateway.reject(token: "fcm-3", status: 404)
        let collector = Collector(expected: targets.count)
        sink.deliver(push(targets), completion: collector.completion)
        let results = try #require(collector.wait())
        #expect(results.count == 100)
        #expect(results.values.filter { $0 == .delivered }.count == 98)
        #expect(results[Self.hexToken(7)] == .unregistered(reason: "410 Unregistered"))
        #expect(results["fcm-3"] == .unregistered(reason: "404 UNREGISTERED: Requested entity was not found."))
        let deliveries = harness.gateway.deliveries
        #expect(deliveries.count == 98)
        let apns = try #require(deliveries.first { $0.provider == .apns })
        #expect(apns.topic == "dev.lerix.demo")
        #expect(apns.priority == "5")
        #expect(apns.body == APNsRequest.body)
        let fcm = try #require(deliveries.first { $0.provider == .fcm })
        #expect(fcm.project == "demo-fcm")
        #expect(fcm.body == FCMRequest.body(token: fcm.token))
    }

    @Test func aGatewayThatIsDownIsRecordedAsFailedWithTheReason() throws {
        // A port bound but never listened on: connects are refused, and no other process can
        // take the port while the test runs.
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        let url = HTTPURL(scheme: .http, host: "127.0.0.1", port: closed.port)
        var configuration = GatewayPushSink.Configuration(apnsGateway: url, fcmGateway: nil)
        configuration.retry = RetryPolicy(maxAttempts: 2, initialBackoffMilliseconds: 5)
        let sink = try GatewayPushSink(configuration: configuration)
        defer { sink.shutdown() }
        let targets =
            (0..<20).map { PushTarget(token: Self.hexToken($0), platform: .ios) }
            + [PushTarget(token: "android-1", platform: .android)]
        let collector = Collector(expected: targets.count)
        sink.deliver(push(targets), completion: collector.completion)
        let results = try #require(collector.wait())
        #expect(results["android-1"] == .noGateway)
        for i in 0..<20 {
            guard case .failed(let reason)? = results[Self.hexToken(i)] else {
                Issue.record("token \(i): \(String(describing: results[Self.hexToken(i)]))")
                continue
            }
            #expect(reason.contains("connect to \(url) failed: Connection refused"), "\(reason)")
            #expect(reason.contains("gave up after 2 attempts"), "\(reason)")
        }
    }

    /// Issue 12, point 6: the handshake is part of connecting. A peer that completes TCP and
    /// never sends its SETTINGS used to leave every token pending forever.
    @Test func aGatewayThatAcceptsButNeverSpeaksHTTP2FailsEveryTokenWithinTheConnectTimeout() throws {
        let silent = try SilentPort()
        defer { withExtendedLifetime(silent) {} }
        let url = HTTPURL(scheme: .http, host: "127.0.0.1", port: silent.port)
        var configuration = GatewayPushSink.Configuration(apnsGateway: url, fcmGateway: url)
        configuration.connectTimeout = .milliseconds(150)
        configuration.retry = RetryPolicy(maxAttempts: 2, initialBackoffMilliseconds: 5)
        let sink = try GatewayPushSink(configuration: configuration)
        defer { sink.shutdown() }
        let targets =
            (0..<20).map { PushTarget(token: Self.hexToken($0), platform: .ios) }
            + (0..<5).map { PushTarget(token: "fcm-\($0)", platform: .android) }
        let collector = Collector(expected: targets.count)
        sink.deliver(push(targets), completion: collector.completion)
        let results = try #require(collector.wait(seconds: 20), "tokens still pending after 20 s")
        #expect(results.count == targets.count)
        for target in targets {
            guard case .failed(let reason)? = results[target.token] else {
                Issue.record("\(target.token): \(String(describing: results[target.token]))")
                continue
            }
            #expect(
                reason.contains("timed out after 150 ms: TCP connected but no HTTP/2 SETTINGS arrived"),
                "\(reason)"
            )
            #expect(reason.contains("gave up after 2 attempts"), "\(reason)")
        }
    }

    @Test func anUnavailableGatewayIsRetriedThenRecordedAsFailed() throws {
        let harness = try Harness()
        defer { harness.stop() }
        harness.gateway.setUnavailable(status: 503)
        let sink = try harness.sink()
        defer { sink.shutdown() }
        let targets = (0..<10).map { PushTarget(token: "fcm-\($0)", platform: .android) }
        let collector = Collector(expected: targets.count)
        sink.deliver(push(targets), completion: collector.completion)
        let results = try #require(collector.wait())
        for (_, result) in results {
            #expect(
                result
                    == .failed(
                        reason: "503 UNAVAILABLE: The service is currently unavailable. (gave up after 3 attempts)"
                    )
            )
        }
        #expect(sink.statistics(.fcm)?.requests == 30)
        #expect(sink.statistics(.fcm)?.retries == 20)
    }

    @Test func tooManyRequestsIsRetriedAfterRetryAfter() throws {
        let harness = try Harness()
        defer { harness.stop() }
        harness.gateway.setUnavailable(status: 429, retryAfterSeconds: 7, count: 1)
        let retryClock = ManualScheduler(now: Instant(rfc3339: "2026-12-02T11:00:00.000Z")!)
        let sink = try harness.sink(retryScheduler: retryClock)
        defer { sink.shutdown() }
        let collector = Collector(expected: 1)
        sink.deliver(push([PushTarget(token: Self.hexToken(1), platform: .ios)]), completion: collector.completion)
        // The retry waits on the (manual) retry clock for exactly Retry-After.
        let due = retryClock.now.adding(seconds: 7)
        for _ in 0..<20_000 where retryClock.nextDeadline == nil { usleep(1000) }
        #expect(retryClock.nextDeadline == due)
        #expect(harness.gateway.deliveredCount == 0)
        retryClock.advance(to: due)
        let results = try #require(collector.wait())
        #expect(results[Self.hexToken(1)] == .delivered)
        #expect(harness.gateway.deliveredCount == 1)
    }

    @Test func neverPutsMoreStreamsOnAConnectionThanAllowed() throws {
        let harness = try Harness()
        defer { harness.stop() }
        harness.gateway.setDelay(milliseconds: 50)
        let sink = try harness.sink { c in
            c.maxConnections = 2
            c.maxStreamsPerConnection = 16
        }
        defer { sink.shutdown() }
        let targets = (0..<200).map { PushTarget(token: Self.hexToken($0), platform: .ios) }
        let collector = Collector(expected: targets.count)
        sink.deliver(push(targets), completion: collector.completion)
        let results = try #require(collector.wait())
        #expect(results.values.allSatisfy { $0 == .delivered })
        let stats = try #require(sink.statistics(.apns))
        #expect(stats.maxStreamsOnOneConnection <= 16)
        #expect(stats.maxStreamsOnOneConnection > 0)
        #expect(harness.gateway.maxInFlight <= 32)
        #expect(stats.connectionsOpened <= 2)
    }

    @Test func respectsThePeersMaxConcurrentStreamsSetting() throws {
        let harness = try Harness()
        defer { harness.stop() }
        harness.gateway.setDelay(milliseconds: 50)
        let sink = try harness.sink { c in c.maxConnections = 1 }
        defer { sink.shutdown() }
        let targets = (0..<400).map { PushTarget(token: "fcm-\($0)", platform: .android) }
        let collector = Collector(expected: targets.count)
        sink.deliver(push(targets), completion: collector.completion)
        let results = try #require(collector.wait())
        #expect(results.values.allSatisfy { $0 == .delivered })
        let stats = try #require(sink.statistics(.fcm))
        #expect(stats.peerMaxConcurrentStreams > 0)
        #expect(stats.peerMaxConcurrentStreams < 1000)
        #expect(stats.maxStreamsOnOneConnection <= stats.peerMaxConcurrentStreams)
        #expect(harness.gateway.maxInFlight <= stats.peerMaxConcurrentStreams)
    }

    @Test func aSlowGatewayTimesOutWithTheReason() throws {
        let harness = try Harness()
        defer { harness.stop() }
        harness.gateway.setDelay(milliseconds: 3_000)
        let sink = try harness.sink { c in
            c.requestTimeout = .milliseconds(100)
            c.retry = RetryPolicy(maxAttempts: 1)
        }
        defer { sink.shutdown() }
        let collector = Collector(expected: 3)
        sink.deliver(
            push((0..<3).map { PushTarget(token: "fcm-\($0)", platform: .android) }),
            completion: collector.completion
        )
        let results = try #require(collector.wait(seconds: 10))
        for (_, result) in results {
            guard case .failed(let reason) = result else {
                Issue.record("\(result)")
                continue
            }
            #expect(reason.contains("no answer from \(harness.url) within 100 ms"), "\(reason)")
        }
    }

    @Test func aGatewayDyingMidFanOutIsRetriedAndRecordedWithoutHanging() throws {
        let harness = try Harness()
        harness.gateway.setDelay(milliseconds: 10_000)
        let sink = try harness.sink()
        defer { sink.shutdown() }
        let targets = (0..<20).map { PushTarget(token: Self.hexToken($0), platform: .ios) }
        let collector = Collector(expected: targets.count)
        sink.deliver(push(targets), completion: collector.completion)
        for _ in 0..<20_000 where harness.gateway.maxInFlight < 20 { usleep(1000) }
        #expect(harness.gateway.maxInFlight == 20)
        harness.stop()
        let results = try #require(collector.wait())
        for (_, result) in results {
            guard case .failed(let reason) = result else {
                Issue.record("\(result)")
                continue
            }
            #expect(reason.contains("gave up after 3 attempts"), "\(reason)")
        }
        #expect((sink.statistics(.apns)?.retries ?? 0) >= 20)
    }

    @Test func shuttingDownFailsWhatIsLeftAndClosesEveryConnection() throws {
        let harness = try Harness()
        defer { harness.stop() }
        harness.gateway.setDelay(milliseconds: 10_000)
        let sink = try harness.sink { c in
            c.maxStreamsPerConnection = 4
            c.maxConnections = 1
        }
        let targets = (0..<10).map { PushTarget(token: "fcm-\($0)", platform: .android) }
        let collector = Collector(expected: targets.count)
        sink.deliver(push(targets), completion: collector.completion)
        for _ in 0..<20_000 where harness.gateway.maxInFlight < 4 { usleep(1000) }
        sink.shutdown()
        let results = try #require(collector.wait())
        #expect(results.values.allSatisfy { $0 == .failed(reason: "the push sink was shut down") })
        #expect(sink.statistics(.fcm)?.openConnections == 0)
        #expect(sink.statistics(.fcm)?.connectionsOpened == 1)
    }

    @Test func tokensBeyondTheBacklogBoundFailAtOnce() throws {
        let harness = try Harness()
        defer { harness.stop() }
        harness.gateway.setDelay(milliseconds: 20)
        let sink = try harness.sink { c in c.maxOutstandingTokens = 10 }
        defer { sink.shutdown() }
        let targets = (0..<25).map { PushTarget(token: Self.hexToken($0), platform: .ios) }
        let collector = Collector(expected: targets.count)
        sink.deliver(push(targets), completion: collector.completion)
        let results = try #require(collector.wait())
        #expect(results.values.filter { $0 == .delivered }.count == 10)
        let refused = results.values.filter {
            if case .failed(let reason) = $0 { return reason.hasPrefix("gateway backlog full: 10 tokens") }
            return false
        }
        #expect(refused.count == 15)
    }

    @Test func projectsWithoutTopicOrFCMProjectFailWithTheReason() throws {
        let harness = try Harness()
        defer { harness.stop() }
        let sink = try harness.sink()
        defer { sink.shutdown() }
        let collector = Collector(expected: 2)
        let bare = OutgoingPush(
            id: 1,
            project: "bare",
            apnsTopic: nil,
            fcmProject: nil,
            tokens: [
                PushTarget(token: Self.hexToken(1), platform: .ios), PushTarget(token: "f", platform: .android),
            ]
        )
        sink.deliver(bare, completion: collector.completion)
        let results = try #require(collector.wait())
        #expect(
            results[Self.hexToken(1)]
                == .failed(reason: "project bare has no apns_topic: APNs needs the app's bundle id as topic")
        )
        #expect(
            results["f"] == .failed(reason: "project bare has no fcm_project: FCM sends to /v1/projects/{fcm_project}")
        )
    }

    @Test func otherSchemesAreRefusedAtStartWithAMessage() {
        #expect(throws: HTTPURLError.self) {
            _ = try GatewayPushSink.Configuration(apnsGateway: "ftp://api.push.apple.com", fcmGateway: nil)
        }
    }
}
