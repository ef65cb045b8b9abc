import HTTP
import Reactor
import Sockets

/// One HTTP/1.1 keep-alive connection to one origin, on a ``ClientSocket``: requests written
/// as soon as the socket is established (pipelined up to the pool's depth), answers matched to
/// them in order by the pure `HTTPResponseParser` (content-length, chunked, read-until-close,
/// no body for HEAD/204/304, interim 1xx skipped).
///
/// What ends it: a response without keep-alive (`Connection: close`, HTTP/1.0, a body read to
/// the close), the peer closing, a malformed answer, the read timeout, the idle timeout, or the
/// pool. Requests it could not answer go back to the pool with their ``UnansweredFate``; the
/// pool sends again what that and its retry policy allow and fails the others with the error.
///
/// Confined to its reactor's queue (created, fed and closed there).
final class HTTP1ClientConnection: ClientSocketDelegate {
    private(set) var socket: ClientSocket?
    let origin: Origin
    /// Strong: the pool lives while it has connections, also after its client was released.
    private let pool: HTTP1ConnectionPool
    private var parser: HTTPResponseParser
    /// Given to this connection, not written yet (it is still connecting, or pipelining is full).
    private var queued: [Exchange] = []
    /// Written, answers pending, oldest first (`inFlightHead` on).
    private var inFlight: [Exchange] = []
    private var inFlightHead = 0
    private var scratch: [UInt8] = []
    /// No new requests: the last answer said close, or the connection is being shut down.
    private(set) var isRetiring = false
    private var lastProgress: UInt64 = 0
    private var idleSince: UInt64
    private(set) var answered = 0

    init(pool: HTTP1ConnectionPool, origin: Origin, addresses: [SocketAddress], security: TransportSecurity) {
        self.pool = pool
        self.origin = origin
        self.parser = HTTPResponseParser(limits: pool.configuration.responseLimits)
        self.idleSince = Reactor.now()
        let socket = ClientSocket(
            reactor: pool.reactor,
            peer: origin.description,
            addresses: addresses,
            security: security,
            connectTimeout: pool.configuration.connectTimeoutNanoseconds,
            delegate: self
        )
        self.socket = socket
        socket.start()
    }

    /// Requests given to it and not answered yet.
    var load: Int { queued.count + inFlight.count - inFlightHead }

    var isEstablished: Bool { socket?.phase == .established }

    /// Takes a request; ``writeQueued()`` writes it (with the others given since) once the
    /// socket is established.
    func enqueue(_ exchange: Exchange) {
        queued.append(exchange)
    }

    // MARK: ClientSocketDelegate

    func socketEstablished(_ socket: ClientSocket) {
        if origin.isSecure, let agreed = socket.negotiatedProtocol, agreed != "http/1.1" {
            end(
                .tlsFailed(
                    peer: origin.description,
                    reason: "the server chose \(agreed) by ALPN; this client speaks http/1.1"
                ),
                .failAll
            )
            return
        }
        idleSince = Reactor.now()
        writeQueued()
    }

    func socket(_ socket: ClientSocket, received bytes: UnsafeRawBufferPointer) {
        lastProgress = Reactor.now()
        handle(parser.feed(bytes))
    }

    func socketPeerClosed(_ socket: ClientSocket) {
        handle(parser.endOfStream())
        // Still open: nothing was outstanding, or a read-until-close body just ended. What is
        // left was never read by the server.
        end(.closedEarly(peer: origin.description, detail: "before answering"), .neverRead)
    }

    func socket(_ socket: ClientSocket, closedWith error: HTTPClientError?) {
        self.socket = nil
        isRetiring = true
        let unanswered = takeUnanswered()
        let reason = error ?? closingReason ?? .closedEarly(peer: origin.description, detail: "before answering")
        var fate = error == nil ? closingFate : .diedUnderOldest
        if let error, HTTP1ConnectionPool.isConnectFailure(error) { fate = .failAll }
        pool.connectionClosed(self, unanswered: unanswered, error: reason, fate: fate)
    }

    var socketDeadline: UInt64 {
        if inFlightHead < inFlight.count {
            return pool.configuration.readTimeoutNanoseconds == 0
                ? 0 : lastProgress &+ pool.configuration.readTimeoutNanoseconds
        }
        if queued.isEmpty, pool.configuration.idleTimeoutNanoseconds > 0 {
            return idleSince &+ pool.configuration.idleTimeoutNanoseconds
        }
        return 0
    }

    func socketDeadlinePassed(_ socket: ClientSocket) {
        if inFlightHead < inFlight.count {
            // The oldest request waited too long; those behind it cannot be answered before it.
            let timedOut = HTTPClientError.readTimedOut(
                peer: origin.description,
                milliseconds: Int(pool.configuration.readTimeoutNanoseconds / 1_000_000)
            )
            popInFlight()?.finish(.failure(timedOut))
            end(timedOut, .oldestAnswered)
        } else {
            // Idle past the keep-alive time: close before the server does (no race with a new request).
            end(nil, .neverRead)
        }
    }

    // MARK: Requests and answers

    /// Writes what is queued, up to the pipeline depth, in one piece (nothing before the socket
    /// is established: it writes then).
    func writeQueued() {
        guard let socket, isEstablished, !isRetiring else { return }
        let depth = pool.configuration.maximumPipelineDepth
        var index = 0
        while index < queued.count && inFlight.count - inFlightHead < depth {
            let exchange = queued[index]
            index += 1
            if inFlightHead == inFlight.count { lastProgress = Reactor.now() }
            HTTPRequestSerializer.write(exchange.request, authority: origin.authority, to: &scratch)
            parser.expectResponse(toHEAD: exchange.isHEAD)
            exchange.written = true
            inFlight.append(exchange)
        }
        if index > 0 { queued.removeFirst(index) }
        if !scratch.isEmpty {
            pool.requestWrites += 1
            socket.send(scratch)
            scratch.removeAll(keepingCapacity: scratch.capacity <= 64 << 10)
        }
    }

    private func handle(_ events: [HTTPResponseParserEvent]) {
        for event in events {
            switch event {
            case .informational:
                continue
            case .response(let response):
                guard let exchange = popInFlight() else { continue }
                answered += 1
                if !response.keepAlive { isRetiring = true }
                exchange.finish(.success(response))
            case .failure(let error):
                let peer = origin.description
                switch error.kind {
                case .closedBeforeResponse:
                    // The server read the oldest request (or not) and closed: the pool's policy decides.
                    end(.closedEarly(peer: peer, detail: "before answering"), .diedUnderOldest)
                case .truncated:
                    let truncated = HTTPClientError.closedEarly(
                        peer: peer,
                        detail: "in the middle of a response (\(error.message))"
                    )
                    popInFlight()?.finish(.failure(truncated))
                    end(truncated, .oldestAnswered)
                case .malformed, .tooLarge, .unexpected:
                    // The framing cannot be trusted: nothing on this connection is retried.
                    let broken = HTTPClientError.malformedResponse(peer: peer, reason: error.message)
                    popInFlight()?.finish(.failure(broken))
                    end(broken, .failAll)
                }
                return
            }
        }
        guard socket != nil else { return }
        if inFlightHead == inFlight.count {
            inFlight.removeAll(keepingCapacity: true)
            inFlightHead = 0
            idleSince = Reactor.now()
        }
        if isRetiring {
            // The server said this was the last answer: what is behind it was never read.
            end(.closedEarly(peer: origin.description, detail: "after its last answer (Connection: close)"), .neverRead)
            return
        }
        writeQueued()
        if load == 0 { pool.connectionIdle(self) }
    }

    private func popInFlight() -> Exchange? {
        guard inFlightHead < inFlight.count else { return nil }
        let exchange = inFlight[inFlightHead]
        inFlightHead += 1
        return exchange
    }

    private func takeUnanswered() -> [Exchange] {
        let rest = Array(inFlight[inFlightHead...]) + queued
        inFlight = []
        inFlightHead = 0
        queued = []
        return rest
    }

    /// Stops taking requests and closes; what is unanswered goes back to the pool with `fate`,
    /// and `reason` for those that fail.
    func end(_ reason: HTTPClientError?, _ fate: UnansweredFate) {
        isRetiring = true
        guard let socket else { return }
        closingReason = reason
        closingFate = fate
        socket.close()
    }

    /// Why this connection closed itself, for the pool (the socket reports such a close as nil).
    private var closingReason: HTTPClientError?
    private var closingFate = UnansweredFate.neverRead
}

/// What may happen to the requests a closing connection still holds, by why it closed.
enum UnansweredFate: Equatable {
    /// The server never read them (it ended after a final answer, or the client closed an idle
    /// connection): each goes again once.
    case neverRead
    /// The connection died with the oldest written request unanswered (peer closed, reset): the
    /// pool's ``HTTPClient/RetryPolicy`` decides about that one; the others go again once.
    case diedUnderOldest
    /// The oldest already has its error (read timeout, truncated answer): the others go again
    /// once when the policy allows (they may have been processed).
    case oldestAnswered
    /// Nothing goes again: the framing broke, the connect failed, or the client shut down.
    case failAll
}
