import HTTP
import Reactor
import Sockets
import Synchronization
import TLS

/// The HTTP/1.1 client every caller shares: keep-alive connections per origin on a
/// ``Reactor`` (the shared client reactor unless given one), requests pipelined on them,
/// answers in a completion or `await`. `http://` and `https://` (TLS over the
/// ``ConnectionTransport`` seam, ALPN http/1.1); IPv4 and IPv6 (`http://[::1]:8080/`).
///
/// ```swift
/// let client = try HTTPClient()
/// let url = try HTTPURL(parsing: "http://127.0.0.1:8080/healthz")
/// client.send(HTTPRequest(method: "GET", target: url.target), to: url) { result in
///     // on the reactor's queue: keep it short, never wait here
/// }
/// let answer = try await client.send(HTTPRequest(method: "GET", target: "/healthz"), to: url)
/// ```
///
/// Requests may be sent from any thread. A request fails with an ``HTTPClientError`` naming
/// the peer: connect refused or timed out, TLS, the read timeout, a malformed or truncated
/// answer. A request that a dying keep-alive connection took with it unanswered is sent once
/// more on a new connection when that is safe (idempotent, or never written).
public final class HTTPClient: Sendable {
    /// What is sent again on a new connection when one dies (closed, reset) with written
    /// requests unanswered. Requests the server never read (those behind a `Connection: close`
    /// answer, or never written) always go again, once.
    public enum RetryPolicy: Sendable, Equatable {
        /// The oldest unanswered request goes again once if it is idempotent (GET, HEAD, PUT,
        /// DELETE, ...); the ones pipelined behind it go again once.
        case idempotent
        /// The oldest unanswered request fails with the error, whatever its method, so the
        /// caller sees the fault (the adapter's devices must see a reset as a device would); the
        /// ones pipelined behind it go again once.
        case behindOldest
    }

    public struct Configuration: Sendable {
        /// TCP connect plus TLS handshake, at most.
        public var connectTimeout: Duration = .seconds(10)
        /// A request waits at most this long for the next byte of its answer (`.zero`: forever).
        public var readTimeout: Duration = .seconds(30)
        /// An idle keep-alive connection closes after this (`.zero`: never).
        public var idleTimeout: Duration = .seconds(30)
        /// Connections opened to one scheme, host and port at most.
        public var maximumConnectionsPerOrigin = 8
        /// Requests written on one connection before their answers arrived, at most (1: no pipelining).
        public var maximumPipelineDepth = 32
        /// For `https://`: trust and ALPN (offer "http/1.1"). Nil: the system trust store, made on first use.
        public var tls: TLSContext?
        /// The largest answer head and body accepted.
        public var responseLimits = HTTPResponseLimits()
        /// What goes again when a connection dies under a written request.
        public var retry = RetryPolicy.idempotent

        public init() {}

        var connectTimeoutNanoseconds: UInt64 { Self.nanoseconds(connectTimeout) }
        var readTimeoutNanoseconds: UInt64 { Self.nanoseconds(readTimeout) }
        var idleTimeoutNanoseconds: UInt64 { Self.nanoseconds(idleTimeout) }

        package static func nanoseconds(_ duration: Duration) -> UInt64 {
            let (seconds, attoseconds) = duration.components
            guard seconds >= 0 else { return 0 }
            guard seconds < Int64(UInt64.max / 1_000_000_000) - 1 else { return UInt64.max / 2 }
            return UInt64(seconds) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        }
    }

    public let configuration: Configuration
    public let reactor: Reactor
    private let pool: PoolBox
    /// Host names resolved so far (a lookup may block: done once per name, on the caller's thread).
    private let resolved = Mutex<[String: [SocketAddress]]>([:])

    /// - Parameter reactor: the reactor connections sit on; the shared client reactor when nil.
    public init(configuration: Configuration = Configuration(), reactor: Reactor? = nil) throws(HTTPClientError) {
        self.configuration = Self.checked(configuration)
        let chosen: Reactor
        if let reactor { chosen = reactor } else { chosen = try ClientReactor.shared() }
        self.reactor = chosen
        self.pool = PoolBox(HTTP1ConnectionPool(reactor: chosen, configuration: self.configuration))
    }

    /// Requests already sent are still answered; then the connections close.
    deinit {
        let pool = self.pool
        reactor.queue.async { pool.value.drain() }
    }

    private static func checked(_ configuration: Configuration) -> Configuration {
        var c = configuration
        c.maximumConnectionsPerOrigin = max(1, c.maximumConnectionsPerOrigin)
        c.maximumPipelineDepth = max(1, c.maximumPipelineDepth)
        return c
    }

    /// Sends `request` (its `target` in origin form, "/path?query") to the origin of `url`
    /// (scheme, host, port; its path is not used). `completion` runs once, on the reactor's queue.
    public func send(
        _ request: HTTPRequest,
        to url: HTTPURL,
        completion: @escaping @Sendable (Result<ReceivedResponse, HTTPClientError>) -> Void
    ) {
        let origin = Origin(url)
        let addresses: [SocketAddress]
        do {
            addresses = try lookup(origin)
        } catch {
            reactor.queue.async { completion(.failure(error)) }
            return
        }
        submit([Exchange(request: request, origin: origin, addresses: addresses, completion: completion)])
    }

    /// One request of a batch: what to send, and the URL whose origin it goes to.
    public struct AddressedRequest: Sendable {
        public var request: HTTPRequest
        public var url: HTTPURL
        public init(_ request: HTTPRequest, to url: HTTPURL) {
            self.request = request
            self.url = url
        }
    }

    /// Sends `requests` together: one hop to the reactor's queue for all of them, and each
    /// connection they are given to writes its share in one piece. `completion` runs once, on
    /// the reactor's queue, when every one has its answer or error, with the outcomes in the
    /// order of `requests`. Each request is retried, pipelined and timed out as one sent alone.
    ///
    /// ```swift
    /// client.send([.init(checkA, to: url), .init(checkB, to: url)]) { results in
    ///     // results[0] answers checkA, results[1] checkB
    /// }
    /// ```
    public func send(
        _ requests: [AddressedRequest],
        completion: @escaping @Sendable ([Result<ReceivedResponse, HTTPClientError>]) -> Void
    ) {
        guard !requests.isEmpty else {
            reactor.queue.async { completion([]) }
            return
        }
        let outcomes = BatchOutcomes(count: requests.count, completion: completion)
        var exchanges: [Exchange] = []
        exchanges.reserveCapacity(requests.count)
        var failed: [(Int, HTTPClientError)] = []
        // A batch mostly goes to one origin: it is worked out and looked up once per run of equal URLs.
        var previous: (url: HTTPURL, origin: Origin, addresses: [SocketAddress])?
        for (index, item) in requests.enumerated() {
            let origin: Origin
            let addresses: [SocketAddress]
            if let previous, Origin.same(previous.url, item.url) {
                (origin, addresses) = (previous.origin, previous.addresses)
            } else {
                origin = Origin(item.url)
                do {
                    addresses = try lookup(origin)
                } catch {
                    failed.append((index, error))
                    continue
                }
                previous = (item.url, origin, addresses)
            }
            exchanges.append(
                Exchange(request: item.request, origin: origin, addresses: addresses) { result in
                    outcomes.record(result, at: index)
                }
            )
        }
        submit(exchanges, thenFail: failed, in: outcomes)
    }

    /// Hands `exchanges` to the pool on the reactor's queue (at once when already there), in one hop.
    private func submit(
        _ exchanges: [Exchange],
        thenFail failed: [(Int, HTTPClientError)] = [],
        in outcomes: BatchOutcomes? = nil
    ) {
        let pool = self.pool
        let work: @Sendable () -> Void = {
            pool.value.submit(exchanges)
            if let outcomes { for (index, error) in failed { outcomes.record(.failure(error), at: index) } }
        }
        if reactor.isCurrent { work() } else { reactor.queue.async(execute: work) }
    }

    /// ``send(_:to:completion:)`` for async callers.
    public func send(_ request: HTTPRequest, to url: HTTPURL) async throws(HTTPClientError) -> ReceivedResponse {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<ReceivedResponse, HTTPClientError>, Never>) in
            send(request, to: url) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Closes every connection; requests not answered yet fail with ``HTTPClientError/cancelled(_:)``,
    /// and so does every later one. `completion` runs on the reactor's queue once done.
    public func shutdown(completion: @escaping @Sendable () -> Void = {}) {
        let pool = self.pool
        reactor.queue.async {
            pool.value.shutdown()
            completion()
        }
    }

    /// Counts since the client was made (for tests and statistics).
    public struct Statistics: Sendable, Equatable {
        /// Connections open or opening now.
        public var connectionsOpen: Int
        /// Connections opened in all (a `Connection: close` answer or a dead connection shows here).
        public var connectionsOpened: Int
        /// Written requests sent again on a new connection after one died under them.
        public var requestsResent: Int
        /// Pieces of request bytes handed to sockets: what a connection writes at once (its
        /// share of a batch, or all it was given while connecting) is one piece.
        public var requestWrites: Int
    }

    /// Waits for the reactor's queue: not from that queue's own work (it answers at once there).
    public var statistics: Statistics {
        if reactor.isCurrent { return pool.value.statistics }
        let pool = self.pool
        return reactor.queue.sync { pool.value.statistics }
    }

    /// Connections open or opening now (``Statistics/connectionsOpen``).
    public var connectionCount: Int { statistics.connectionsOpen }

    private func lookup(_ origin: Origin) throws(HTTPClientError) -> [SocketAddress] {
        let key = "\(origin.host) \(origin.port)"
        if let known = resolved.withLock({ $0[key] }) { return known }
        let found: [SocketAddress]
        do {
            found = try SocketAddress.lookup(host: origin.host, port: origin.port)
        } catch let error as SocketError {
            throw .lookupFailed(host: origin.host, reason: error.subject.isEmpty ? error.reason : error.subject)
        } catch {
            throw .lookupFailed(host: origin.host, reason: "\(error)")
        }
        resolved.withLock { $0[key] = found }
        return found
    }
}

/// The outcomes of one batch, filled in on the reactor's queue (the only place it is touched);
/// the batch's completion runs when the last one arrives.
final class BatchOutcomes: @unchecked Sendable {
    private var results: [Result<ReceivedResponse, HTTPClientError>]
    private var remaining: Int
    private let completion: @Sendable ([Result<ReceivedResponse, HTTPClientError>]) -> Void

    init(count: Int, completion: @escaping @Sendable ([Result<ReceivedResponse, HTTPClientError>]) -> Void) {
        results = Array(repeating: .failure(.cancelled("no answer yet")), count: count)
        remaining = count
        self.completion = completion
    }

    func record(_ result: Result<ReceivedResponse, HTTPClientError>, at index: Int) {
        results[index] = result
        remaining -= 1
        if remaining == 0 {
            let all = results
            results = []
            completion(all)
        }
    }
}

/// The pool, handed to the reactor's queue (the only place it is touched).
final class PoolBox: @unchecked Sendable {
    let value: HTTP1ConnectionPool
    init(_ value: HTTP1ConnectionPool) { self.value = value }
}
