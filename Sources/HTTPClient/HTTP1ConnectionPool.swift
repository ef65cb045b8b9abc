import Dispatch
import HTTP
import Reactor
import Sockets
import TLS

/// Every HTTP/1.1 connection of one ``HTTPClient``, by origin, and the requests waiting for
/// one. Confined to the reactor's queue.
///
/// A request goes to an idle connection of its origin if there is one; else a new connection
/// opens while the origin has fewer than ``HTTPClient/Configuration/maximumConnectionsPerOrigin``;
/// else it is pipelined on the least loaded connection with room under
/// ``HTTPClient/Configuration/maximumPipelineDepth``; else it waits here, in order.
final class HTTP1ConnectionPool {
    let reactor: Reactor
    let configuration: HTTPClient.Configuration
    private var connections: [Origin: [HTTP1ClientConnection]] = [:]
    private var waiting: [Origin: [Exchange]] = [:]
    private var addresses: [Origin: [SocketAddress]] = [:]
    private var isShutDown = false
    /// The client was released: connections close once they have answered what they hold.
    private var isDraining = false
    private var tls: TLSContextSlot

    init(reactor: Reactor, configuration: HTTPClient.Configuration) {
        self.reactor = reactor
        self.configuration = configuration
        self.tls = TLSContextSlot(configured: configuration.tls)
    }

    /// Connections open (or opening) now, over every origin.
    var connectionCount: Int { connections.values.reduce(0) { $0 + $1.count } }
    private(set) var connectionsOpened = 0
    private(set) var requestsResent = 0
    /// Pieces of request bytes handed to sockets (its connections count them).
    var requestWrites = 0

    var statistics: HTTPClient.Statistics {
        HTTPClient.Statistics(
            connectionsOpen: connectionCount,
            connectionsOpened: connectionsOpened,
            requestsResent: requestsResent,
            requestWrites: requestWrites
        )
    }

    /// Takes requests sent together: each goes to a connection (or waits) as if sent alone, and
    /// each connection given some writes them in one piece once all are placed.
    func submit(_ exchanges: [Exchange]) {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(reactor.queue))
        #endif
        guard !isShutDown else {
            for exchange in exchanges { exchange.finish(.failure(.cancelled("the HTTP client was shut down"))) }
            return
        }
        for exchange in exchanges where addresses[exchange.origin] == nil {
            addresses[exchange.origin] = exchange.addresses
        }
        dispatchAll(exchanges)
    }

    /// Places every exchange, then has each connection that got some write them at once.
    private func dispatchAll<S: Sequence<Exchange>>(_ exchanges: S) {
        var given: [HTTP1ClientConnection] = []
        for exchange in exchanges {
            guard let connection = dispatch(exchange) else { continue }
            if !given.contains(where: { $0 === connection }) { given.append(connection) }
        }
        for connection in given { connection.writeQueued() }
    }

    /// Gives `exchange` to a connection without writing it yet (the caller has that connection
    /// write), or queues it, or fails it; returns the connection it went to.
    private func dispatch(_ exchange: Exchange) -> HTTP1ClientConnection? {
        let origin = exchange.origin
        var list = connections[origin] ?? []
        if let idle = list.first(where: { !$0.isRetiring && $0.load == 0 }) {
            idle.enqueue(exchange)
            return idle
        }
        if list.count < configuration.maximumConnectionsPerOrigin {
            guard let connection = open(origin) else {
                failOrigin(origin, with: exchange)
                return nil
            }
            list.append(connection)
            connections[origin] = list
            connection.enqueue(exchange)
            return connection
        }
        var best: HTTP1ClientConnection?
        for connection in list where !connection.isRetiring && connection.load < configuration.maximumPipelineDepth {
            if let current = best, current.load <= connection.load { continue }
            best = connection
        }
        if let best {
            best.enqueue(exchange)
            return best
        }
        waiting[origin, default: []].append(exchange)
        return nil
    }

    /// The TLS context could not be made: everything for this origin fails the same way.
    private func failOrigin(_ origin: Origin, with exchange: Exchange) {
        exchange.finish(
            .failure(tls.failure ?? .connectFailed(peer: origin.description, reason: "no connection could be opened"))
        )
    }

    private func open(_ origin: Origin) -> HTTP1ClientConnection? {
        let security: TransportSecurity
        if origin.isSecure {
            guard let context = tls.context() else { return nil }
            security = .tls(context, peerName: origin.host)
        } else {
            security = .plaintext
        }
        connectionsOpened += 1
        return HTTP1ClientConnection(pool: self, origin: origin, addresses: addresses[origin] ?? [], security: security)
    }

    /// A connection answered everything it had: give it waiting requests of its origin.
    func connectionIdle(_ connection: HTTP1ClientConnection) {
        guard var queue = waiting[connection.origin], !queue.isEmpty else {
            if isDraining { connection.end(nil, .neverRead) }
            return
        }
        let take = min(queue.count, configuration.maximumPipelineDepth)
        let batch = queue.prefix(take)
        queue.removeFirst(take)
        waiting[connection.origin] = queue.isEmpty ? nil : queue
        for exchange in batch { connection.enqueue(exchange) }
        connection.writeQueued()
    }

    /// A connection is gone: forget it, send again what its fate and the retry policy allow
    /// (each request at most once more after it was written), fail the rest with `error`, and
    /// give waiting requests a connection.
    func connectionClosed(
        _ connection: HTTP1ClientConnection,
        unanswered: [Exchange],
        error: HTTPClientError,
        fate: UnansweredFate
    ) {
        let origin = connection.origin
        connections[origin]?.removeAll { $0 === connection }
        if connections[origin]?.isEmpty == true { connections[origin] = nil }
        var oldestWritten = true
        var again: [Exchange] = []
        for exchange in unanswered {
            let isOldest = exchange.written && oldestWritten
            if exchange.written { oldestWritten = false }
            if !isShutDown, mayResend(exchange, isOldest: isOldest, fate: fate) {
                if exchange.written {
                    exchange.retried = true
                    requestsResent += 1
                }
                exchange.written = false
                again.append(exchange)
            } else {
                exchange.finish(.failure(error))
            }
        }
        let queue = waiting.removeValue(forKey: origin) ?? []
        if fate == .failAll, Self.isConnectFailure(error), connections[origin]?.isEmpty ?? true {
            // No connection to this origin works now: the waiting requests would fail the same way
            // (and `again` is empty: nothing is resent after a failed connect).
            for exchange in queue { exchange.finish(.failure(error)) }
        } else {
            dispatchAll(again + queue)
        }
    }

    private func mayResend(_ exchange: Exchange, isOldest: Bool, fate: UnansweredFate) -> Bool {
        if fate == .failAll { return false }
        if !exchange.written { return true }
        if exchange.retried { return false }
        switch fate {
        case .neverRead:
            return true
        case .diedUnderOldest:
            if !isOldest { return true }
            return configuration.retry == .idempotent && exchange.isIdempotent
        case .oldestAnswered:
            return configuration.retry == .behindOldest || exchange.isIdempotent
        case .failAll:
            return false
        }
    }

    static func isConnectFailure(_ error: HTTPClientError) -> Bool {
        switch error {
        case .connectFailed, .connectTimedOut, .tlsFailed, .lookupFailed: return true
        default: return false
        }
    }

    /// The client was released: idle connections close now, busy ones once they have answered.
    func drain() {
        isDraining = true
        for connection in connections.values.flatMap({ $0 }) where connection.load == 0 {
            connection.end(nil, .neverRead)
        }
    }

    /// Fails everything waiting and closes every connection (their requests fail as cancelled).
    func shutdown() {
        isShutDown = true
        let queued = waiting.values.flatMap { $0 }
        waiting = [:]
        for exchange in queued { exchange.finish(.failure(.cancelled("the HTTP client was shut down"))) }
        for connection in connections.values.flatMap({ $0 }) {
            connection.end(.cancelled("the HTTP client was shut down"), .failAll)
        }
    }
}

/// The client TLS context for https origins: the configured one, or one made on first use
/// (system trust, ALPN http/1.1). Remembers a failure to make it.
struct TLSContextSlot {
    private var made: TLSContext?
    private(set) var failure: HTTPClientError?

    init(configured: TLSContext?) { made = configured }

    mutating func context() -> TLSContext? {
        if let made { return made }
        do {
            let context = try TLSContext.client(alpn: ["http/1.1"])
            made = context
            return context
        } catch {
            failure = .tlsFailed(peer: "-", reason: "no client TLS context: \(error)")
            return nil
        }
    }
}
