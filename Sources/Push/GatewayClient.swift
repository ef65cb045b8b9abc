import Clock
import Dispatch
import HTTP
import MockServer
import Sockets

/// Delivery to one gateway (APNs or FCM) over a small pool of h2c connections: admission,
/// retries and the pool's actions, all on one serial queue.
///
/// The decisions live in value types (``ConnectionPool``, ``RetryState``, ``ProviderResponse``);
/// this class performs their actions: it opens ``GatewayConnection``s, sends requests, arms
/// retry timers and reports results.
final class GatewayClient: @unchecked Sendable {
    struct Work {
        let job: PushJob
        let token: String
        var retry = RetryState()
    }

    let provider: PushProvider
    let url: GatewayURL
    let address: SocketAddress
    let configuration: GatewayPushSink.Configuration
    let queue: DispatchQueue
    let resultsQueue: DispatchQueue
    let retryScheduler: any Scheduler

    // Confined to `queue`.
    private var pool: ConnectionPool
    private var connections: [Int: GatewayConnection] = [:]
    private var work: [Int: Work] = [:]
    private var nextRequestID = 0
    private var touched: [GatewayConnection] = []
    private var flushScheduled = false
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var stats = GatewayPushSink.ProviderStatistics()
    private var stopped = false

    init(provider: PushProvider, url: GatewayURL, address: SocketAddress, configuration: GatewayPushSink.Configuration,
         resultsQueue: DispatchQueue, retryScheduler: any Scheduler) {
        self.provider = provider
        self.url = url
        self.address = address
        self.configuration = configuration
        self.queue = DispatchQueue(label: "lerix.push.\(provider.rawValue)")
        self.resultsQueue = resultsQueue
        self.retryScheduler = retryScheduler
        self.pool = ConnectionPool(maxConnections: configuration.maxConnections,
                                   maxStreamsPerConnection: configuration.maxStreamsPerConnection)
        self.readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    }

    deinit { readBuffer.deallocate() }

    var label: String { url.description }

    /// Takes a push's tokens; those beyond the backlog bound fail at once, with the reason.
    func enqueue(pushID: Int, destination: String, tokens: [String], completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        queue.async { [self] in
            let job = PushJob(pushID: pushID, destination: destination, tokenCount: tokens.count,
                              maxBatch: configuration.resultBatchSize, completion: completion)
            let room = stopped ? 0 : max(0, configuration.maxOutstandingTokens - work.count)
            var ids: [Int] = []
            ids.reserveCapacity(min(room, tokens.count))
            for (i, token) in tokens.enumerated() {
                if i < room {
                    let id = nextRequestID
                    nextRequestID += 1
                    work[id] = Work(job: job, token: token)
                    ids.append(id)
                } else {
                    stats.refused += 1
                    let reason = stopped ? "the push sink was shut down"
                        : "gateway backlog full: \(configuration.maxOutstandingTokens) tokens already waiting for \(label)"
                    job.record(token, .failed(reason: reason), client: self)
                }
            }
            perform(pool.submit(ids))
        }
    }

    /// Closes every connection; work still waiting fails with a reason.
    func shutdown() {
        queue.async { [self] in
            stopped = true
            for connection in Array(connections.values) { connection.close(reason: "the push sink was shut down") }
            for id in Array(work.keys) { finish(id, .failed(reason: "the push sink was shut down")) }
        }
    }

    func statistics(_ reply: @escaping @Sendable (GatewayPushSink.ProviderStatistics) -> Void) {
        queue.async { [self] in
            var s = stats
            s.outstanding = work.count
            s.openConnections = connections.count
            for c in connections.values { s.maxStreamsOnOneConnection = max(s.maxStreamsOnOneConnection, c.maxOpenStreams) }
            reply(s)
        }
    }

    // MARK: Pool actions

    private func perform(_ actions: [ConnectionPool.Action]) {
        for action in actions {
            switch action {
            case .open(let id):
                if stopped {
                    perform(pool.connectionLost(id, reason: "the push sink was shut down"))
                    continue
                }
                stats.connectionsOpened += 1
                let connection = GatewayConnection(
                    id: id, queue: queue, address: address, authority: url.authority, label: label,
                    connectTimeoutNanoseconds: UInt64(configuration.connectTimeoutMilliseconds) * 1_000_000,
                    requestTimeoutNanoseconds: UInt64(configuration.requestTimeoutMilliseconds) * 1_000_000,
                    readBuffer: readBuffer
                ) { [weak self] event in self?.handle(event, on: id) }
                connections[id] = connection
                connection.start()
            case .send(let requestID, let connectionID):
                send(requestID, on: connectionID)
            case .fail(let ids, let reason):
                // Queued work that no connection could take: the failed connect was its attempt.
                for id in ids {
                    work[id]?.retry.attemptStarted()
                    attemptEnded(id, .retryable(reason: reason, retryAfterMilliseconds: nil))
                }
            case .close(let id):
                connections[id]?.close(reason: "drained after GOAWAY")
            }
        }
        flushTouched()
    }

    private func send(_ requestID: Int, on connectionID: Int) {
        guard var item = work[requestID], let connection = connections[connectionID] else {
            perform(pool.streamClosed(on: connectionID))
            return
        }
        item.retry.attemptStarted()
        work[requestID] = item
        let request: HTTPRequest
        switch provider {
        case .apns: request = APNsRequest.silentPush(token: item.token, topic: item.job.destination, pathPrefix: url.pathPrefix)
        case .fcm: request = FCMRequest.silentPush(token: item.token, project: item.job.destination, pathPrefix: url.pathPrefix)
        }
        stats.requests += 1
        if let problem = connection.send(request, requestID: requestID) {
            perform(pool.streamClosed(on: connectionID))
            attemptEnded(requestID, .retryable(reason: problem, retryAfterMilliseconds: nil))
            return
        }
        if !touched.contains(where: { $0 === connection }) { touched.append(connection) }
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

    private func handle(_ event: GatewayConnection.Event, on id: Int) {
        switch event {
        case .ready(let maxStreams):
            stats.peerMaxConcurrentStreams = maxStreams
            perform(pool.connected(id, maxConcurrentStreams: maxStreams))
        case .settingsChanged(let maxStreams):
            stats.peerMaxConcurrentStreams = maxStreams
            perform(pool.settingsChanged(id, maxConcurrentStreams: maxStreams))
        case .response(let requestID, let response):
            let verdict = ProviderResponse.verdict(provider, status: response.status, headers: response.headers,
                                                   body: response.body, now: retryScheduler.now)
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

    // MARK: Outcomes

    private func attemptEnded(_ requestID: Int, _ verdict: AttemptVerdict) {
        guard var item = work[requestID] else { return }
        if stopped {
            finish(requestID, .failed(reason: "the push sink was shut down"))
            return
        }
        switch item.retry.attemptFinished(verdict, policy: configuration.retry, now: retryScheduler.now) {
        case .finish(let outcome):
            finish(requestID, outcome)
        case .retry(let at):
            stats.retries += 1
            work[requestID] = item
            retryScheduler.schedule(at: at) { [weak self] in
                guard let self else { return }
                queue.async { [self] in
                    guard work[requestID] != nil else { return }
                    perform(pool.submit(requestID))
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
        item.job.record(item.token, outcome, client: self)
    }
}
