#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTP
import LerixSDK
import Sockets
import Synchronization
import TLS

/// The adapter's own HTTP/1.1 client: a few keep-alive connections per origin, requests
/// pipelined on them, all driven by one `poll(2)` loop on the caller's thread inside
/// ``runUntilIdle()``. A hundred devices checking at one instant cost a handful of writes
/// and reads instead of a hundred round trips; no Dispatch worker ever blocks.
///
/// ```swift
/// let host = AdapterHost(network: SocketNetwork())
/// ```
///
/// `send` may be called from any thread; completions run inside `runUntilIdle`, on its thread.
/// `https://` URLs run each connection through a ``TLSSession`` (ALPN http/1.1, the system
/// trust store plus ``Options/trustedCAFile``); the handshake happens while connecting.
public final class SocketNetwork: AdapterNetwork, @unchecked Sendable {
    public struct Options: Sendable {
        /// Connections opened to one host and port at most.
        public var maximumConnectionsPerOrigin = 8
        /// Requests pipelined on one connection at most; more wait their turn.
        public var maximumPipelineDepth = 32
        /// A request not answered within this many real seconds fails (a stalled server).
        public var requestTimeoutSeconds = 30
        /// A CA (PEM) to trust beside the system store for `https://` servers (a dev CA, tests).
        public var trustedCAFile: String?
        public init() {}
    }

    struct Origin: Hashable {
        var host: String
        var port: Int
        var isSecure = false
    }

    struct Pending {
        var origin: Origin
        var bytes: [UInt8]
        var isHead: Bool
        var completion: @Sendable (TransportResult) -> Void
        var retried = false
    }

    final class Connection {
        let fd: Int32
        let origin: Origin
        var parser = HTTPResponseParser()
        /// Requests written (or being written), oldest first: responses arrive in this order.
        var inFlight: [Pending] = []
        var outgoing: [UInt8] = []
        var served = 0
        var deadline: Int64 = 0
        /// TLS for https origins: `outgoing` is plaintext, `sealed` what goes to the socket.
        let tls: TLSSession?
        var sealed: [UInt8] = []

        init(fd: Int32, origin: Origin, tls: TLSSession? = nil) {
            self.fd = fd
            self.origin = origin
            self.tls = tls
        }

        var hasUnsentBytes: Bool { !outgoing.isEmpty || !sealed.isEmpty }
    }

    public let options: Options
    /// Requests sent and not yet picked up by the loop (the only state touched off-thread).
    private let incoming = Mutex<[Pending]>([])
    // Everything below is confined to the thread running `runUntilIdle` (the host's).
    private var waiting: [Origin: [Pending]] = [:]
    private var connections: [Origin: [Connection]] = [:]
    private var readBuffer = [UInt8](repeating: 0, count: 262_144)
    private var pollSet: [pollfd] = []
    private var polled: [Connection] = []
    private var plaintextBuffer = [UInt8](repeating: 0, count: 16_384)
    /// Made at the first https connection (the trust store is read once).
    private var tlsContext: Result<TLSContext, TransportError>?

    public init(options: Options = Options()) {
        self.options = options
    }

    deinit {
        for list in connections.values { for c in list { Posix.close(c.fd) } }
    }

    public func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        let url: HTTPURL
        do {
            url = try HTTPURL(parsing: request.url)
        } catch {
            completion(.failure(TransportError("the adapter cannot send to \(error)")))
            return
        }
        let pending = Pending(
            origin: Origin(host: url.host, port: url.port, isSecure: url.isSecure), bytes: Self.serialize(request, url),
            isHead: request.method == "HEAD", completion: completion)
        incoming.withLock { $0.append(pending) }
    }

    public func startSending() {
        let arrived = incoming.withLock { list -> [Pending] in
            let taken = list
            list.removeAll()
            return taken
        }
        guard !arrived.isEmpty else { return }
        if !connections.values.contains(where: { $0.contains { !$0.inFlight.isEmpty } }) { dropClosedIdleConnections() }
        for pending in arrived { waiting[pending.origin, default: []].append(pending) }
        assignWaiting()
    }

    public func runUntilIdle() {
        var checkedIdle = false
        while true {
            let arrived = incoming.withLock { list -> [Pending] in
                let taken = list
                list.removeAll()
                return taken
            }
            if !arrived.isEmpty && !checkedIdle {
                dropClosedIdleConnections()
                checkedIdle = true
            }
            for pending in arrived { waiting[pending.origin, default: []].append(pending) }
            assignWaiting()
            let busy = connections.values.contains { $0.contains { !$0.inFlight.isEmpty } }
            if !busy {
                if incoming.withLock({ !$0.isEmpty }) || waiting.values.contains(where: { !$0.isEmpty }) { continue }
                return
            }
            pollOnce()
        }
    }

    /// Idle keep-alive connections the server closed meanwhile (its idle timeout runs in real
    /// time while the harness thinks) are dropped before anything is sent on them.
    private func dropClosedIdleConnections() {
        for (origin, list) in connections {
            var kept: [Connection] = []
            for connection in list {
                if connection.inFlight.isEmpty {
                    var entry = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
                    if poll(&entry, 1, 0) != 0 && idleConnectionIsGone(connection) {
                        Posix.close(connection.fd)
                        continue
                    }
                }
                kept.append(connection)
            }
            connections[origin] = kept
        }
    }

    /// Spreads waiting requests over the origin's connections (opening more up to the limit,
    /// pipelining up to the depth limit) and writes them.
    private func assignWaiting() {
        for origin in Array(waiting.keys) {
            guard var queue = waiting[origin], !queue.isEmpty else {
                waiting[origin] = nil
                continue
            }
            var list = connections[origin] ?? []
            var index = 0
            while index < queue.count {
                let least = list.min { $0.inFlight.count < $1.inFlight.count }
                var target: Connection?
                if let least, least.inFlight.isEmpty || list.count >= options.maximumConnectionsPerOrigin {
                    target = least.inFlight.count < options.maximumPipelineDepth ? least : nil
                } else {
                    switch open(origin) {
                    case .success(let fresh):
                        list.append(fresh)
                        target = fresh
                    case .failure(let error):
                        if list.isEmpty {
                            // Nothing reaches this origin: every waiting request fails now.
                            let failed = Array(queue[index...])
                            queue.removeAll()
                            waiting[origin] = nil
                            connections[origin] = list
                            for pending in failed { pending.completion(.failure(error)) }
                            break
                        }
                        target = least.flatMap { $0.inFlight.count < options.maximumPipelineDepth ? $0 : nil }
                    }
                }
                guard let connection = target else { break }
                let pending = queue[index]
                index += 1
                if connection.inFlight.isEmpty {
                    connection.deadline = Self.monotonicMilliseconds() + Int64(options.requestTimeoutSeconds) * 1000
                }
                connection.inFlight.append(pending)
                connection.parser.expectResponse(toHEAD: pending.isHead)
                connection.outgoing.append(contentsOf: pending.bytes)
            }
            if !queue.isEmpty { queue.removeFirst(min(index, queue.count)) }
            waiting[origin] = queue.isEmpty ? nil : queue
            connections[origin] = list
            for connection in list where connection.hasUnsentBytes { flush(connection) }
        }
    }

    /// Writes what the socket takes now; the rest goes when `poll` says it can.
    private func flush(_ connection: Connection) {
        if let tls = connection.tls {
            if !connection.outgoing.isEmpty {
                tls.send(connection.outgoing)
                connection.outgoing.removeAll(keepingCapacity: true)
            }
            tls.drainCiphertext(into: &connection.sealed)
        }
        while connection.tls == nil ? !connection.outgoing.isEmpty : !connection.sealed.isEmpty {
            let result: Result<IOResult, Error> = (connection.tls == nil ? connection.outgoing : connection.sealed).withUnsafeBytes { buffer in
                Result { try Posix.write(connection.fd, buffer) }
            }
            switch result {
            case .success(.processed(let n)):
                if connection.tls == nil { Self.consume(n, of: &connection.outgoing) } else { Self.consume(n, of: &connection.sealed) }
            case .success(.wouldBlock):
                return
            case .success(.endOfFile):
                fail(connection, TransportError("the connection closed while sending"), retry: .none)
                return
            case .failure(let error):
                fail(connection, TransportError("\(error)"))
                return
            }
        }
    }

    private static func consume(_ n: Int, of buffer: inout [UInt8]) {
        if n == buffer.count { buffer.removeAll(keepingCapacity: true) } else { buffer.removeFirst(n) }
    }

    /// A TCP connection to `origin`, with TLS when it is https.
    private func open(_ origin: Origin) -> Result<Connection, TransportError> {
        let fd: Int32
        switch Self.connect(origin) {
        case .success(let connected): fd = connected
        case .failure(let error): return .failure(error)
        }
        guard origin.isSecure else { return .success(Connection(fd: fd, origin: origin)) }
        if tlsContext == nil {
            do {
                tlsContext = .success(try TLSContext.client(trustingAlso: options.trustedCAFile, alpn: ["http/1.1"]))
            } catch {
                tlsContext = .failure(TransportError("\(error)"))
            }
        }
        switch tlsContext! {
        case .failure(let error):
            Posix.close(fd)
            return .failure(error)
        case .success(let context):
            switch Self.handshake(fd: fd, origin: origin, context: context, timeoutSeconds: options.requestTimeoutSeconds) {
            case .success(let session): return .success(Connection(fd: fd, origin: origin, tls: session))
            case .failure(let error):
                Posix.close(fd)
                return .failure(error)
            }
        }
    }

    /// An idle connection the poll says is readable: gone when the server closed it or sent
    /// something unasked; a TLS session ticket (TLS 1.3 sends them after the handshake) is not that.
    private func idleConnectionIsGone(_ connection: Connection) -> Bool {
        guard let tls = connection.tls else { return true }
        let result: Result<IOResult, Error> = readBuffer.withUnsafeMutableBytes { buffer in
            Result { try Posix.read(connection.fd, into: buffer) }
        }
        guard case .success(.processed(let n)) = result else {
            if case .success(.wouldBlock) = result { return false }
            return true
        }
        readBuffer.withUnsafeBytes { tls.receive(UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
        var unasked = false
        let outcome = plaintextBuffer.withUnsafeMutableBytes { tls.readPlaintext(into: $0) { _ in unasked = true } }
        return unasked || outcome != .needMore
    }

    private func pollOnce() {
        pollSet.removeAll(keepingCapacity: true)
        polled.removeAll(keepingCapacity: true)
        for list in connections.values {
            for connection in list where !connection.inFlight.isEmpty {
                var events = Int16(POLLIN)
                if connection.hasUnsentBytes { events |= Int16(POLLOUT) }
                pollSet.append(pollfd(fd: connection.fd, events: events, revents: 0))
                polled.append(connection)
            }
        }
        let ready = pollSet.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 250) }
        if ready > 0 {
            for (i, entry) in pollSet.enumerated() where entry.revents != 0 {
                let connection = polled[i]
                if entry.revents & Int16(POLLOUT) != 0 { flush(connection) }
                if entry.revents & ~Int16(POLLOUT) != 0 && !connection.inFlight.isEmpty { readAvailable(connection) }
            }
        }
        let now = Self.monotonicMilliseconds()
        for connection in polled where !connection.inFlight.isEmpty && connection.deadline <= now {
            fail(connection, TransportError("no answer within \(options.requestTimeoutSeconds) s"), retry: .none)
        }
    }

    private func readAvailable(_ connection: Connection) {
        let result: Result<IOResult, Error> = readBuffer.withUnsafeMutableBytes { buffer in
            Result { try Posix.read(connection.fd, into: buffer) }
        }
        var events: [HTTPResponseParserEvent] = []
        switch result {
        case .success(.processed(let n)):
            if let tls = connection.tls {
                readBuffer.withUnsafeBytes { tls.receive(UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
                let outcome = plaintextBuffer.withUnsafeMutableBytes { tls.readPlaintext(into: $0) { events += connection.parser.feed($0) } }
                switch outcome {
                case .needMore:
                    break
                case .closed:
                    events += connection.parser.endOfStream()
                case .failed(let reason):
                    if deliver(events, on: connection) { fail(connection, TransportError(reason), retry: .none) }
                    return
                }
            } else {
                readBuffer.withUnsafeBytes { events = connection.parser.feed(UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
            }
        case .success(.wouldBlock):
            return
        case .success(.endOfFile):
            events = connection.parser.endOfStream()
        case .failure(let error):
            fail(connection, TransportError("\(error)"))
            return
        }
        _ = deliver(events, on: connection)
    }

    /// Completes the requests `events` answer, oldest first; false when the connection is gone.
    private func deliver(_ events: [HTTPResponseParserEvent], on connection: Connection) -> Bool {
        for event in events {
            switch event {
            case .informational:
                continue
            case .response(let received):
                let response = TransportResponse(status: received.status, headers: received.headers.fields.map { ($0.name, $0.value) },
                                                 body: received.body)
                complete(connection, response)
                if !received.keepAlive {
                    fail(connection, TransportError("the server closed the connection"), retry: .all)
                    return false
                }
            case .failure(let error):
                // A close (before or inside an answer) leaves what follows unread; garbage retries nothing.
                let closed = error.kind == .closedBeforeResponse || error.kind == .truncated
                fail(connection, TransportError(error.message), retry: closed ? .behindFirst : .none)
                return false
            }
        }
        return true
    }

    private func complete(_ connection: Connection, _ response: TransportResponse) {
        guard !connection.inFlight.isEmpty else { return }
        let pending = connection.inFlight.removeFirst()
        connection.served += 1
        connection.deadline = Self.monotonicMilliseconds() + Int64(options.requestTimeoutSeconds) * 1000
        pending.completion(.success(response))
    }

    /// How much of a dead connection's pipeline goes again on a fresh one.
    enum Retry {
        /// Nothing: the server stalled or answered garbage.
        case none
        /// The requests behind the first unanswered one: an HTTP/1.1 server handles a pipeline
        /// in order, so when it drops the first (the `reset` fault) it never read the rest. The
        /// first one fails: the SDK must see that fault, as its device would.
        case behindFirst
        /// All of them: the server answered `Connection: close` and read none of them.
        case all
    }

    /// Closes the connection and fails or re-queues (once) its unanswered requests.
    private func fail(_ connection: Connection, _ error: TransportError, retry: Retry = .behindFirst) {
        Posix.close(connection.fd)
        connections[connection.origin]?.removeAll { $0 === connection }
        let unanswered = connection.inFlight
        let partial = connection.parser.hasPartialResponse
        connection.inFlight = []
        connection.outgoing = []
        connection.sealed = []
        connection.parser = HTTPResponseParser()
        var again: [Pending] = []
        for (i, var pending) in unanswered.enumerated() {
            let resend: Bool
            switch retry {
            case .none: resend = false
            case .behindFirst: resend = i > 0
            case .all: resend = !(i == 0 && partial)
            }
            if resend && !pending.retried {
                pending.retried = true
                again.append(pending)
            } else {
                pending.completion(.failure(error))
            }
        }
        if !again.isEmpty { waiting[connection.origin, default: []].insert(contentsOf: again, at: 0) }
    }
}
