#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LerixSDK
import Sockets
import Synchronization

/// The adapter's own HTTP/1.1 client: keep-alive connections pooled per origin, many requests
/// in flight at once over one `poll(2)` loop that runs on the caller's thread inside
/// ``runUntilIdle()``. No Dispatch worker ever blocks, no thread is spawned, and a week of
/// polling for a hundred devices costs a few syscalls per check.
///
/// ```swift
/// let host = AdapterHost(network: SocketNetwork())
/// ```
///
/// `send` may be called from any thread; completions run inside `runUntilIdle`, on its thread.
/// Plain `http://` only: the SDK's default ``URLSessionTransport`` is the one that speaks TLS.
public final class SocketNetwork: AdapterNetwork, @unchecked Sendable {
    public struct Options: Sendable {
        /// Connections opened to one host and port at most; more requests wait their turn.
        public var maximumConnectionsPerOrigin = 128
        /// A request not answered within this many real seconds fails (a stalled server).
        public var requestTimeoutSeconds = 30
        public init() {}
    }

    struct Origin: Hashable {
        var host: String
        var port: Int
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
        var reader = HTTPResponseReader()
        var pending: Pending?
        var served = 0
        var deadline: Int64 = 0

        init(fd: Int32, origin: Origin) {
            self.fd = fd
            self.origin = origin
        }
    }

    public let options: Options
    /// Requests sent and not yet picked up by the loop (the only state touched off-thread).
    private let incoming = Mutex<[Pending]>([])
    // Everything below is confined to the thread running `runUntilIdle` (the host's).
    private var waiting: [Origin: [Pending]] = [:]
    private var idle: [Origin: [Connection]] = [:]
    private var openCount: [Origin: Int] = [:]
    private var busy: [Int32: Connection] = [:]
    private var readBuffer = [UInt8](repeating: 0, count: 65_536)
    private var pollSet: [pollfd] = []

    public init(options: Options = Options()) {
        self.options = options
    }

    deinit {
        for connections in idle.values { for c in connections { Posix.close(c.fd) } }
        for c in busy.values { Posix.close(c.fd) }
    }

    public func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        guard let target = RequestTarget(url: request.url) else {
            completion(.failure(TransportError("the adapter's client speaks plain http:// only, not \(request.url)")))
            return
        }
        let pending = Pending(
            origin: Origin(host: target.host, port: target.port), bytes: Self.serialize(request, target),
            isHead: request.method == "HEAD", completion: completion)
        incoming.withLock { $0.append(pending) }
    }

    public func runUntilIdle() {
        while true {
            let arrived = incoming.withLock { list -> [Pending] in
                let taken = list
                list.removeAll()
                return taken
            }
            for pending in arrived { waiting[pending.origin, default: []].append(pending) }
            assignWaiting()
            if busy.isEmpty {
                let more = incoming.withLock { !$0.isEmpty } || waiting.values.contains { !$0.isEmpty }
                if more { continue }
                return
            }
            pollOnce()
        }
    }

    /// Hands waiting requests to idle connections, opening new ones up to the limit.
    private func assignWaiting() {
        for origin in Array(waiting.keys) {
            while var queue = waiting[origin], !queue.isEmpty {
                let connection: Connection
                if var pool = idle[origin], let reused = pool.popLast() {
                    idle[origin] = pool
                    connection = reused
                } else if openCount[origin, default: 0] < options.maximumConnectionsPerOrigin {
                    switch Self.connect(origin) {
                    case .success(let fd):
                        connection = Connection(fd: fd, origin: origin)
                        openCount[origin, default: 0] += 1
                    case .failure(let error):
                        let failed = queue.removeFirst()
                        waiting[origin] = queue
                        failed.completion(.failure(error))
                        continue
                    }
                } else {
                    break
                }
                let pending = queue.removeFirst()
                waiting[origin] = queue
                start(pending, on: connection)
            }
            if waiting[origin]?.isEmpty == true { waiting[origin] = nil }
        }
    }

    private func start(_ pending: Pending, on connection: Connection) {
        connection.pending = pending
        connection.reader.reset(expectsNoBody: pending.isHead)
        connection.deadline = Self.monotonicMilliseconds() + Int64(options.requestTimeoutSeconds) * 1000
        if let error = writeAll(connection.fd, pending.bytes, deadline: connection.deadline) {
            fail(connection, error)
            return
        }
        busy[connection.fd] = connection
    }

    private func pollOnce() {
        pollSet.removeAll(keepingCapacity: true)
        for fd in busy.keys { pollSet.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        let ready = pollSet.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 250) }
        if ready < 0 && errno != EINTR { return }
        if ready > 0 {
            for entry in pollSet where entry.revents != 0 {
                guard let connection = busy[entry.fd] else { continue }
                readAvailable(connection)
            }
        }
        let now = Self.monotonicMilliseconds()
        for connection in Array(busy.values) where connection.deadline <= now {
            busy[connection.fd] = nil
            finishWithError(connection, TransportError("no answer within \(options.requestTimeoutSeconds) s"), retry: false)
        }
    }

    private func readAvailable(_ connection: Connection) {
        let result: Result<IOResult, TransportError> = readBuffer.withUnsafeMutableBytes { buffer in
            do { return .success(try Posix.read(connection.fd, into: buffer)) } catch {
                return .failure(TransportError("\(error)"))
            }
        }
        let outcome: HTTPResponseReader.Outcome
        switch result {
        case .success(.processed(let n)):
            outcome = readBuffer.withUnsafeBytes { connection.reader.feed(UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
        case .success(.wouldBlock):
            return
        case .success(.endOfFile):
            outcome = connection.reader.endOfStream()
            if case .invalid = outcome {
                busy[connection.fd] = nil
                finishWithError(connection, TransportError("the connection closed"), retry: true)
                return
            }
        case .failure(let error):
            busy[connection.fd] = nil
            finishWithError(connection, error, retry: true)
            return
        }
        switch outcome {
        case .needMore:
            return
        case .invalid(let reason):
            busy[connection.fd] = nil
            finishWithError(connection, TransportError(reason), retry: false)
        case .complete(let response, let keepAlive):
            busy[connection.fd] = nil
            let pending = connection.pending
            connection.pending = nil
            connection.served += 1
            if keepAlive {
                idle[connection.origin, default: []].append(connection)
            } else {
                close(connection)
            }
            pending?.completion(.success(response))
        }
    }

    /// A reused connection the server had already closed fails before any byte of an answer:
    /// the request goes again once on a fresh connection, as browsers do.
    private func finishWithError(_ connection: Connection, _ error: TransportError, retry: Bool) {
        let canRetry = retry && connection.served > 0 && !connection.reader.hasReceivedBytes
        let pending = connection.pending
        connection.pending = nil
        close(connection)
        guard var pending else { return }
        if canRetry && !pending.retried {
            pending.retried = true
            waiting[pending.origin, default: []].insert(pending, at: 0)
        } else {
            pending.completion(.failure(error))
        }
    }

    private func fail(_ connection: Connection, _ error: TransportError) {
        finishWithError(connection, error, retry: true)
    }

    private func close(_ connection: Connection) {
        Posix.close(connection.fd)
        openCount[connection.origin, default: 1] -= 1
    }
}
