import Clock
import Dispatch
import HTTP
import HTTP2
import HTTPClient
import MockServer
import ProviderAuth
import Reactor
import Sockets
import TLS

/// Delivery to one gateway (APNs or FCM) over a small pool of HTTP/2 connections: admission,
/// retries and the pool's actions, all on its own ``Reactor``'s queue (APNs and FCM each have
/// one, so a fan-out to both uses two cores).
///
/// The decisions live in value types (``ConnectionPool``, ``RetryState``, ``ProviderResponse``);
/// this class performs their actions: it opens ``HTTP2ClientConnection``s, sends requests, arms
/// retry timers and reports results. (`@unchecked Sendable`: confined to `queue`, the
/// reactor's, and only handed to closures that run there.)
///
/// Its stored state is confined to one queue and touched for every pushed token, so each stored
/// property is `@exclusivity(unchecked)`: release builds skip the run-time exclusivity checks
/// there without an unsafe build flag, which SwiftPM refuses in a dependency pinned by version.
final class GatewayClient: @unchecked Sendable {
    struct Work {
        let job: PushJob
        let token: String
        /// The token's index in the push, reported with its result.
        let position: Int
        var retry = RetryState()
    }

    /// Where to connect: the URL, its addresses (tried in order), and TLS trust for `https://` (nil: h2c).
    struct Endpoint {
        let url: HTTPURL
        let addresses: [SocketAddress]
        let tls: TLSContext?
    }

    let provider: PushProvider
    let endpoint: Endpoint
    var url: HTTPURL { endpoint.url }
    /// FCM with a service account: where access tokens come from.
    let tokenEndpoint: Endpoint?
    let configuration: GatewayPushSink.Configuration
    let reactor: Reactor
    var queue: DispatchQueue { reactor.queue }
    let resultsQueue: DispatchQueue
    let retryScheduler: any Scheduler

    // Confined to `queue`.
    @exclusivity(unchecked) private var pool: ConnectionPool
    @exclusivity(unchecked) private var connections = OpenConnections()
    @exclusivity(unchecked) private var work = WorkTable<Work>()
    @exclusivity(unchecked) private var touched: [HTTP2ClientConnection] = []
    @exclusivity(unchecked) private var flushScheduled = false
    @exclusivity(unchecked) private var stats = GatewayPushSink.ProviderStatistics()
    @exclusivity(unchecked) private var stopped = false
    @exclusivity(unchecked) private var apnsAuth: APNsProviderToken?
    @exclusivity(unchecked) private var fcmAuth: FCMAccessToken?
    /// Work waiting for an FCM access token, and the connection fetching one.
    @exclusivity(unchecked) private var awaitingToken: [Int] = []
    @exclusivity(unchecked) private var tokenConnection: HTTP2ClientConnection?

    init(
        provider: PushProvider,
        endpoint: Endpoint,
        tokenEndpoint: Endpoint?,
        configuration: GatewayPushSink.Configuration,
        resultsQueue: DispatchQueue,
        retryScheduler: any Scheduler
    ) throws {
        self.provider = provider
        self.endpoint = endpoint
        self.tokenEndpoint = tokenEndpoint
        self.apnsAuth = provider == .apns ? configuration.apnsAuth : nil
        self.fcmAuth = provider == .fcm ? configuration.fcmAuth : nil
        self.configuration = configuration
        // Deadlines are swept every 5 ms: request and connect timeouts fire at most that late.
        // Fan-out I/O runs below the server's loops (by default background QoS: nice 10 on Linux),
        // so check answers are not queued behind it for a CPU.
        self.reactor = try Reactor(
            label: "lerix.push.\(provider.rawValue)",
            sweepInterval: 5_000_000,
            qos: configuration.ioQoS
        )
        self.resultsQueue = resultsQueue
        self.retryScheduler = retryScheduler
        self.pool = ConnectionPool(
            maxConnections: configuration.maxConnections,
            maxStreamsPerConnection: configuration.maxStreamsPerConnection
        )
        reactor.start()
    }

    var label: String { url.description }

    /// Takes the tokens at `positions` of a push; those beyond the backlog bound fail at once, with the reason.
    func enqueue(
        pushID: Int,
        destination: String,
        tokens: [PushTarget],
        positions: [Int],
        completion: @escaping @Sendable ([TokenDelivery]) -> Void
    ) {
        queue.async { [self] in
            let job = PushJob(
                pushID: pushID,
                destination: destination,
                tokenCount: positions.count,
                maxBatch: configuration.resultBatchSize,
                completion: completion
            )
            let room = stopped ? 0 : max(0, configuration.maxOutstandingTokens - work.count)
            var ids: [Int] = []
            ids.reserveCapacity(min(room, positions.count))
            work.reserveCapacity(min(room, positions.count))
            for (i, position) in positions.enumerated() {
                let token = tokens[position].token
                if i < room {
                    let id = work.insert(Work(job: job, token: token, position: position))
                    ids.append(id)
                } else {
                    stats.refused += 1
                    let reason =
                        stopped
                        ? "the push sink was shut down"
                        : "gateway backlog full: \(configuration.maxOutstandingTokens) tokens already waiting for \(label)"
                    job.record(token, at: position, .failed(reason: reason), client: self)
                }
            }
            submit(ids)
        }
    }

    /// Hands work to the pool, unless FCM auth has no fresh access token: then it waits for one.
    private func submit(_ ids: [Int]) {
        assertConfined()
        guard !ids.isEmpty else { return }
        if let fcmAuth, fcmAuth.authorization(now: retryScheduler.now) == nil {
            awaitingToken.append(contentsOf: ids)
            fetchAccessToken()
            return
        }
        perform(pool.submit(ids))
    }

    /// Closes every connection and stops the reactor; work still waiting fails with a reason.
    func shutdown() {
        queue.async { [self] in
            guard !stopped else { return }
            stopped = true
            for connection in Array(connections.values) { connection.close(reason: "the push sink was shut down") }
            tokenConnection?.close(reason: "the push sink was shut down")
            for id in work.ids { finish(id, .failed(reason: "the push sink was shut down")) }
            reactor.stop()
        }
    }

    func statistics(_ reply: @escaping @Sendable (GatewayPushSink.ProviderStatistics) -> Void) {
        queue.async { [self] in
            var s = stats
            s.outstanding = work.count
            s.openConnections = connections.count
            for c in connections.values {
                s.maxStreamsOnOneConnection = max(s.maxStreamsOnOneConnection, c.maxOpenStreams)
            }
            reply(s)
        }
    }

    // MARK: Pool actions

    private func perform(_ actions: [ConnectionPool.Action]) {
        assertConfined()
        for action in actions {
            switch action {
            case .open(let id):
                if stopped {
                    perform(pool.connectionLost(id, reason: "the push sink was shut down"))
                    continue
                }
                stats.connectionsOpened += 1
                let connection = makeConnection(to: endpoint) { [weak self] event in self?.handle(event, on: id) }
                connections[id] = connection
                connection.start()
            case .send(let requestID, let connectionID):
                send(requestID, on: connectionID)
            case .fail(let ids, let reason):
                // Queued work that no connection could take: the failed connect was its attempt.
                for id in ids { attemptEnded(id, .retryable(reason: reason, retryAfterMilliseconds: nil)) }
            case .close(let id):
                connections[id]?.close(reason: "drained after GOAWAY")
            }
        }
        flushTouched()
    }

    private func makeConnection(
        to endpoint: Endpoint,
        onEvent: @escaping (HTTP2ClientConnection.Event) -> Void
    ) -> HTTP2ClientConnection {
        HTTP2ClientConnection(
            reactor: reactor,
            label: endpoint.url.description,
            authority: endpoint.url.authority,
            addresses: endpoint.addresses,
            security: endpoint.tls.map { .tls($0, peerName: endpoint.url.host) } ?? .plaintext,
            configuration: .init(
                connectTimeout: configuration.connectTimeout,
                requestTimeout: configuration.requestTimeout,
                keptResponseFields: Self.readResponseFields
            ),
            onEvent: onEvent
        )
    }

    /// The only response field the verdicts read (``ProviderResponse``); the token endpoint's
    /// answer is read from its body. The others are not made into strings.
    static let readResponseFields = ["retry-after"]

    private func send(_ requestID: Int, on connectionID: Int) {
        guard let item = work[requestID], let connection = connections[connectionID] else {
            perform(pool.streamClosed(on: connectionID))
            return
        }
        var authorization: String?
        if fcmAuth != nil {
            guard let bearer = fcmAuth?.authorization(now: retryScheduler.now) else {
                // The token ran out while this waited in the pool: wait for a new one.
                perform(pool.streamClosed(on: connectionID))
                submit([requestID])
                return
            }
            authorization = bearer
        }
        // The attempt starts here; ``attemptEnded(_:_:)`` counts it (every attempt sent ends
        // there exactly once), so the work is not written back for every request sent.
        if apnsAuth != nil {
            do {
                authorization = try apnsAuth!.authorization(now: retryScheduler.now)
            } catch {
                perform(pool.streamClosed(on: connectionID))
                attemptEnded(requestID, .rejected(reason: "APNs provider token not signed: \(error)"))
                return
            }
        }
        stats.requests += 1
        let template = item.job.template(authorization: authorization) {
            makeTemplate(for: item.job, authorization: $0)
        }
        let problem: String?
        switch provider {
        case .apns:
            problem = connection.send(
                template,
                pathSuffix: PathSegment.encode(item.token),
                body: APNsRequest.body,
                requestID: requestID
            )
        case .fcm:
            problem = connection.send(
                template,
                pathSuffix: "",
                body: FCMRequest.body(token: item.token),
                requestID: requestID
            )
        }
        if let problem {
            perform(pool.streamClosed(on: connectionID))
            attemptEnded(requestID, .retryable(reason: problem, retryAfterMilliseconds: nil))
            return
        }
        if !touched.contains(where: { $0 === connection }) { touched.append(connection) }
    }

    /// The fixed part of every request of `job` (made once per job, again when the
    /// authorization changes): the request APNsRequest or FCMRequest builds, without its
    /// token. APNs requests add the encoded token to the path; FCM's carry it in the body.
    private func makeTemplate(for job: PushJob, authorization: String?) -> HTTP2RequestTemplate {
        var shape: HTTPRequest
        switch provider {
        case .apns: shape = APNsRequest.silentPush(token: "", topic: job.destination, pathPrefix: url.pathPrefix)
        case .fcm: shape = FCMRequest.silentPush(token: "", project: job.destination, pathPrefix: url.pathPrefix)
        }
        if let authorization { shape.headers.add("authorization", authorization) }
        return HTTP2RequestTemplate(
            scheme: endpoint.tls == nil ? "http" : "https",
            authority: url.authority,
            shape: shape
        )
    }

    /// Writes go out once per turn of the queue, not per request: a read that completes 300
    /// responses starts 300 new streams, and they leave in one `send`.
    private func flushTouched() {
        guard !touched.isEmpty, !flushScheduled else { return }
        flushScheduled = true
        queue.async { [self] in
            flushScheduled = false
            let list = touched
            touched = []
            for connection in list { connection.flush() }
        }
    }

    // MARK: Connection events

    private func handle(_ event: HTTP2ClientConnection.Event, on id: Int) {
        assertConfined()
        switch event {
        case .ready(let maxStreams):
            stats.peerMaxConcurrentStreams = maxStreams
            perform(pool.connected(id, maxConcurrentStreams: maxStreams))
        case .settingsChanged(let maxStreams):
            stats.peerMaxConcurrentStreams = maxStreams
            perform(pool.settingsChanged(id, maxConcurrentStreams: maxStreams))
        case .response(let requestID, let response):
            // FCM refused the access token: the next sends fetch a new one.
            if provider == .fcm, response.status == 401 { fcmAuth?.invalidate() }
            // A 2xx is delivered whatever else it says: no clock reading for it.
            let verdict =
                (200..<300).contains(response.status)
                ? AttemptVerdict.delivered
                : ProviderResponse.verdict(
                    provider,
                    status: response.status,
                    headers: response.headers,
                    body: response.body,
                    now: retryScheduler.now
                )
            attemptEnded(requestID, verdict)
            perform(pool.streamClosed(on: id))
        case .streamFailed(let requestID, let reason):
            attemptEnded(requestID, .retryable(reason: reason, retryAfterMilliseconds: nil))
            perform(pool.streamClosed(on: id))
        case .goingAway:
            perform(pool.goingAway(id))
        case .closed(let reason, let unfinished):
            connections[id] = nil
            for requestID in unfinished {
                attemptEnded(requestID, .retryable(reason: reason, retryAfterMilliseconds: nil))
            }
            perform(pool.connectionLost(id, reason: reason))
        }
    }

    // MARK: FCM access tokens

    /// Starts one token request to the service account's `token_uri`, unless one is under way.
    private func fetchAccessToken() {
        guard tokenConnection == nil, !stopped, let auth = fcmAuth, let tokenEndpoint else { return }
        let request: HTTPRequest
        do {
            request = try auth.tokenRequest(now: retryScheduler.now)
        } catch {
            settleAwaiting(.rejected(reason: "FCM access token not requested: \(error)"))
            return
        }
        stats.accessTokensFetched += 1
        let connection = makeConnection(to: tokenEndpoint) { [weak self] event in
            self?.tokenEvent(event, request: request)
        }
        tokenConnection = connection
        connection.start()
    }

    private func tokenEvent(_ event: HTTP2ClientConnection.Event, request: HTTPRequest) {
        assertConfined()
        guard let connection = tokenConnection else { return }
        let label = tokenEndpoint?.url.description ?? "the token endpoint"
        switch event {
        case .ready:
            if let problem = connection.send(request, requestID: 0) {
                tokenFetchEnded(.retryable(reason: problem, retryAfterMilliseconds: nil))
            } else {
                connection.flush()
            }
        case .settingsChanged, .goingAway:
            break
        case .response(_, let response):
            guard fcmAuth != nil else { return }
            switch fcmAuth!.received(status: response.status, body: response.body, now: retryScheduler.now) {
            case .accepted: tokenFetchEnded(nil)
            case .refused(let reason): tokenFetchEnded(.rejected(reason: "FCM access token refused: \(reason)"))
            case .unavailable(let reason): tokenFetchEnded(.retryable(reason: reason, retryAfterMilliseconds: nil))
            }
        case .streamFailed(_, let reason), .closed(let reason, _):
            tokenFetchEnded(
                .retryable(reason: "FCM access token from \(label) not fetched: \(reason)", retryAfterMilliseconds: nil)
            )
        }
    }

    /// The token request is over: waiting work goes to the pool (nil), or takes `failure` as its attempt.
    private func tokenFetchEnded(_ failure: AttemptVerdict?) {
        let connection = tokenConnection
        tokenConnection = nil
        connection?.close(reason: "token fetched")
        if let failure {
            settleAwaiting(failure)
        } else {
            let ids = awaitingToken
            awaitingToken = []
            perform(pool.submit(ids))
        }
    }

    private func settleAwaiting(_ verdict: AttemptVerdict) {
        let ids = awaitingToken
        awaitingToken = []
        for id in ids { attemptEnded(id, verdict) }
    }

    // MARK: Outcomes

    /// The end of an attempt that was started (sent, or failed before it could be): counts it,
    /// then finishes the work or schedules its next attempt.
    private func attemptEnded(_ requestID: Int, _ verdict: AttemptVerdict) {
        assertConfined()
        // finish(_:_:) does nothing for work no longer here.
        if stopped {
            finish(requestID, .failed(reason: "the push sink was shut down"))
            return
        }
        if case .delivered = verdict {
            finish(requestID, .delivered)
            return
        }
        guard var item = work[requestID] else { return }
        item.retry.attemptStarted()
        switch item.retry.attemptFinished(verdict, policy: configuration.retry, now: retryScheduler.now) {
        case .finish(let outcome):
            finish(requestID, outcome)
        case .retry(let at):
            stats.retries += 1
            work[requestID] = item
            retryScheduler.schedule(at: at) { [weak self] in
                guard let self else { return }
                queue.async { [self] in
                    assertConfined()
                    guard work[requestID] != nil else { return }
                    submit([requestID])
                }
            }
        }
    }

    private func finish(_ requestID: Int, _ outcome: TokenOutcome) {
        guard let item = work.removeValue(forKey: requestID) else { return }
        switch outcome {
        case .delivered: stats.delivered += 1
        case .failed: stats.failed += 1
        case .unregistered: stats.unregistered += 1
        }
        item.job.record(item.token, at: item.position, outcome, client: self)
    }

    /// Debug builds check the confinement the `@unchecked Sendable` relies on (call after any
    /// `weak self` has been resolved).
    @inline(__always)
    private func assertConfined() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }
}

/// The pool's open connections by id: a handful (``GatewayPushSink/Configuration/maxConnections``),
/// found by a scan for every request sent, not by hashing the id.
struct OpenConnections {
    private var entries: [(id: Int, connection: HTTP2ClientConnection)] = []

    var count: Int { entries.count }
    var values: [HTTP2ClientConnection] { entries.map(\.connection) }

    subscript(id: Int) -> HTTP2ClientConnection? {
        get {
            for entry in entries where entry.id == id { return entry.connection }
            return nil
        }
        set {
            if let i = entries.firstIndex(where: { $0.id == id }) {
                if let newValue { entries[i].connection = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append((id, newValue))
            }
        }
    }
}
