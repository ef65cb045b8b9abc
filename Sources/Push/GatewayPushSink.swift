import Clock
import Dispatch
import HTTP
import MockServer
import ProviderAuth
import ReleaseControl
import Sockets
import TLS

/// The ``PushSink`` that delivers silent pushes to APNs- and FCM-speaking gateways over HTTP/2
/// (`HTTPClient`'s ``HTTP2ClientConnection`` on a reactor per provider):
/// TLS with ALPN h2 for `https://` gateways (the system trust store plus ``Configuration/tls``'s
/// CA), h2c with prior knowledge for `http://` ones.
///
/// Each gateway gets a small pool of connections that respects the peer's
/// SETTINGS_MAX_CONCURRENT_STREAMS, connect and request timeouts, bounded retries with
/// exponential backoff on 429/5xx/timeouts (honouring `Retry-After`), and a bound on queued
/// tokens beyond which new tokens fail at once with the reason. Results reach MockServer in
/// batches; APNs 410 and FCM 404 `UNREGISTERED` come back as `unregistered`, so the token is
/// removed. Tokens whose platform has no gateway configured are `no_gateway`.
///
/// ```swift
/// let sink = try GatewayPushSink(configuration: .init(apnsGateway: "http://127.0.0.1:9443",
///                                                     fcmGateway: "http://127.0.0.1:9443"))
/// let app = try MockServer(options: MockServerOptions(pushSink: sink))
/// ```
public final class GatewayPushSink: PushSink, @unchecked Sendable {
    /// Where the gateways are and how hard to try. Every field has a default.
    public struct Configuration: Sendable {
        public var apnsGateway: HTTPURL?
        public var fcmGateway: HTTPURL?
        /// Connections per gateway (opened lazily, as the open ones fill up).
        public var maxConnections: Int = 4
        /// Our own cap on streams per connection, below the peer's when it allows more.
        public var maxStreamsPerConnection: Int = 1000
        /// From starting the TCP connect until the peer's HTTP/2 SETTINGS arrive; nil: no limit.
        public var connectTimeout: Duration? = .seconds(2)
        /// From sending a request until its answer; nil: no limit. Only for a gateway in this
        /// process that answers every request (the scenario runner's stand-in): there a limit of
        /// wall time would fail pushes whenever the machine is busy, and with them a scenario's
        /// verdict, which must depend on virtual time alone.
        public var requestTimeout: Duration? = .seconds(10)
        public var retry = RetryPolicy()
        /// Tokens queued, in flight or waiting to retry, per gateway; more fail at once.
        public var maxOutstandingTokens: Int = 500_000
        /// Results reported to MockServer per batch, and the longest a result waits for one.
        /// Large, because MockServer applies each batch to the whole push record.
        public var resultBatchSize: Int = 16_384
        public var resultFlushInterval: Duration = .milliseconds(200)
        /// Trust for `https://` gateways (offering ALPN h2); nil: the system trust store alone.
        public var tls: TLSContext?
        /// The quality of service of the gateway clients' I/O queues: below the server's loops,
        /// so a fan-out does not hold up check answers when CPUs are short (on Linux, Dispatch
        /// runs background work at nice 10). A fan-out then takes the CPU the loops leave.
        public var ioQoS: DispatchQoS = .background
        /// APNs token authentication: every APNs request carries this provider JWT.
        public var apnsAuth: APNsProviderToken?
        /// FCM HTTP v1 authentication: an OAuth access token from the service account's `token_uri`.
        public var fcmAuth: FCMAccessToken?

        public init(apnsGateway: HTTPURL? = nil, fcmGateway: HTTPURL? = nil) {
            self.apnsGateway = apnsGateway
            self.fcmGateway = fcmGateway
        }

        /// From the `--apns-gateway` / `--fcm-gateway` values; throws with a message naming the URL.
        public init(apnsGateway: String?, fcmGateway: String?) throws(HTTPURLError) {
            self.apnsGateway = try apnsGateway.map { u throws(HTTPURLError) in try Self.gatewayURL(u) }
            self.fcmGateway = try fcmGateway.map { u throws(HTTPURLError) in try Self.gatewayURL(u) }
        }

        /// `https://host[:port][/prefix]` (HTTP/2 over TLS, ALPN h2, as APNs and FCM speak it) or
        /// `http://host[:port][/prefix]` (h2c with prior knowledge); the prefix goes before every request path.
        public static func gatewayURL(_ text: String) throws(HTTPURLError) -> HTTPURL {
            let url = try HTTPURL(parsing: text)
            guard url.query == nil, !text.contains("#") else {
                throw HTTPURLError(url: text, message: "a gateway URL takes no query or fragment")
            }
            return url
        }
    }

    /// Counters for one provider, for benchmarks and tests.
    public struct ProviderStatistics: Sendable, Equatable {
        public var requests = 0
        public var retries = 0
        public var delivered = 0
        public var failed = 0
        public var unregistered = 0
        /// Tokens refused at once because the backlog was full.
        public var refused = 0
        public var connectionsOpened = 0
        public var openConnections = 0
        public var outstanding = 0
        /// The last SETTINGS_MAX_CONCURRENT_STREAMS the gateway sent.
        public var peerMaxConcurrentStreams = 0
        /// The most streams any one open connection carried at once.
        public var maxStreamsOnOneConnection = 0
        /// OAuth access tokens fetched (FCM with --fcm-credentials).
        public var accessTokensFetched = 0
    }

    public let configuration: Configuration
    let apns: GatewayClient?
    let fcm: GatewayClient?
    let resultsQueue: DispatchQueue

    /// - Parameter retryScheduler: when retries happen (real time by default; tests may pass a
    ///   ``ManualScheduler`` to step through backoff). Timeouts always run on real time.
    public init(
        configuration: Configuration,
        retryScheduler: any Scheduler = SystemScheduler()
    ) throws(GatewayPushSinkError) {
        self.configuration = configuration
        // Results stay at the default QoS: applying them takes locks the server's loops take too.
        let resultsQueue = DispatchQueue(label: "lerix.push.results")
        self.resultsQueue = resultsQueue
        func client(_ provider: PushProvider, _ url: HTTPURL?) throws(GatewayPushSinkError) -> GatewayClient? {
            guard let url else { return nil }
            let name = provider == .apns ? "APNs" : "FCM"
            let addresses: [SocketAddress]
            do {
                addresses = try SocketAddress.lookup(host: url.host, port: url.port)
            } catch {
                throw GatewayPushSinkError(message: "the \(name) gateway \(url) cannot be used: \(error)")
            }
            func trust(_ url: HTTPURL) throws(GatewayPushSinkError) -> TLSContext? {
                guard url.isSecure else { return nil }
                do {
                    return try configuration.tls ?? TLSContext.client(alpn: ["h2"])
                } catch {
                    throw GatewayPushSinkError(message: "the \(name) gateway \(url) cannot be used: \(error)")
                }
            }
            var tokenEndpoint: GatewayClient.Endpoint?
            if provider == .fcm, let auth = configuration.fcmAuth {
                let uri = auth.account.tokenURI
                do {
                    let tokenURL = try Configuration.gatewayURL(uri)
                    tokenEndpoint = GatewayClient.Endpoint(
                        url: tokenURL,
                        addresses: try SocketAddress.lookup(host: tokenURL.host, port: tokenURL.port),
                        tls: try trust(tokenURL)
                    )
                } catch let error as GatewayPushSinkError {
                    throw error
                } catch {
                    throw GatewayPushSinkError(
                        message: "the service account's token_uri \(uri) cannot be used: \(error)"
                    )
                }
            }
            let endpoint = GatewayClient.Endpoint(url: url, addresses: addresses, tls: try trust(url))
            do {
                return try GatewayClient(
                    provider: provider,
                    endpoint: endpoint,
                    tokenEndpoint: tokenEndpoint,
                    configuration: configuration,
                    resultsQueue: resultsQueue,
                    retryScheduler: retryScheduler
                )
            } catch {
                throw GatewayPushSinkError(message: "the \(name) gateway \(url) cannot be used: \(error)")
            }
        }
        apns = try client(.apns, configuration.apnsGateway)
        fcm = try client(.fcm, configuration.fcmGateway)
    }

    public func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        // This runs on the server loop that answered the change: one cheap pass, the requests
        // are made on the clients' own queues.
        var apnsTokens: [Int] = []
        var fcmTokens: [Int] = []
        var immediate: [TokenDelivery] = []
        let apnsTopicMissing = push.apnsTopic?.isEmpty ?? true
        let fcmProjectMissing = push.fcmProject?.isEmpty ?? true
        apnsTokens.reserveCapacity(push.tokens.count)
        fcmTokens.reserveCapacity(push.tokens.count)
        for (position, target) in push.tokens.enumerated() {
            func settle(_ result: DeliveryResult) {
                immediate.append(TokenDelivery(token: target.token, result: result, position: position))
            }
            switch PushProvider.serving(target.platform) {
            case .apns?:
                if apns == nil {
                    settle(.noGateway)
                } else if apnsTopicMissing {
                    settle(
                        .failed(
                            reason: "project \(push.project) has no apns_topic: APNs needs the app's bundle id as topic"
                        )
                    )
                } else {
                    apnsTokens.append(position)
                }
            case .fcm?:
                if fcm == nil {
                    settle(.noGateway)
                } else if fcmProjectMissing {
                    settle(
                        .failed(
                            reason:
                                "project \(push.project) has no fcm_project: FCM sends to /v1/projects/{fcm_project}"
                        )
                    )
                } else {
                    fcmTokens.append(position)
                }
            case nil:
                settle(.failed(reason: "\(target.platform.rawValue) has no push"))
            }
        }
        if !immediate.isEmpty { resultsQueue.async { [immediate] in completion(immediate) } }
        if let apns, !apnsTokens.isEmpty, let topic = push.apnsTopic {
            apns.enqueue(
                pushID: push.id,
                destination: topic,
                tokens: push.tokens,
                positions: apnsTokens,
                completion: completion
            )
        }
        if let fcm, !fcmTokens.isEmpty, let project = push.fcmProject {
            fcm.enqueue(
                pushID: push.id,
                destination: project,
                tokens: push.tokens,
                positions: fcmTokens,
                completion: completion
            )
        }
    }

    /// Closes the connections; tokens not yet settled fail with "shut down".
    public func shutdown() {
        apns?.shutdown()
        fcm?.shutdown()
    }

    deinit { shutdown() }

    /// Counters per provider (blocks briefly on the clients' queues; not for hot paths).
    public func statistics(_ provider: PushProvider) -> ProviderStatistics? {
        guard let client = provider == .apns ? apns : fcm else { return nil }
        let box = StatisticsBox()
        let done = DispatchSemaphore(value: 0)
        client.statistics { s in
            box.value = s
            done.signal()
        }
        done.wait()
        return box.value
    }
}

/// Carries one statistics value across the semaphore hand-off in ``GatewayPushSink/statistics(_:)``.
private final class StatisticsBox: @unchecked Sendable {
    var value: GatewayPushSink.ProviderStatistics?
}

/// A gateway the sink cannot use, with the reason.
public struct GatewayPushSinkError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
