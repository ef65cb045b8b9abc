import Dispatch
import HTTP
import HTTPClient
import LerixSDK
import Synchronization
import TLS

/// The adapter's network over the shared ``HTTPClient``: keep-alive connections per origin on
/// the client reactor, requests pipelined on them, so a hundred devices checking at one instant
/// are a hundred requests in flight at once, not a hundred round trips. No Dispatch worker waits.
///
/// ```swift
/// let host = AdapterHost(network: HTTPClientNetwork())
/// ```
///
/// `send` may be called from any thread; requests collect until ``startSending()`` or
/// ``runUntilIdle()`` hands them to the client as one batch (one hop to its queue, one write
/// per connection, one wake-up of the host when the batch is answered). Completions are kept
/// until ``runUntilIdle()`` runs them on its thread (the host's), so a device's state machine
/// never runs on two threads. `https://` uses TLS with ALPN http/1.1, trusting the system store
/// plus ``Options/trustedCAFile``.
public final class HTTPClientNetwork: AdapterNetwork, Sendable {
    public struct Options: Sendable {
        /// Connections opened to one host and port at most.
        public var maximumConnectionsPerOrigin = 8
        /// Requests pipelined on one connection at most; more wait their turn.
        public var maximumPipelineDepth = 32
        /// A request not answered within this much real time fails (a stalled server).
        public var requestTimeout: Duration = .seconds(30)
        /// A CA (PEM) to trust beside the system store for `https://` servers (a dev CA, tests).
        public var trustedCAFile: String?
        public init() {}
    }

    /// An answer waiting for the host's thread.
    private struct Arrived {
        var completion: @Sendable (TransportResult) -> Void
        var result: TransportResult
    }

    /// What the host's thread and the client's queue share: requests not handed to the client
    /// yet (with their completions, in order), how many sent have not completed, and the
    /// answers the host has not run.
    private struct Shared {
        var unsent: [HTTPClient.AddressedRequest] = []
        var unsentCompletions: [@Sendable (TransportResult) -> Void] = []
        var inFlight = 0
        var arrived: [Arrived] = []
        /// The host found nothing to run and waits on `answered`: the next answers signal it,
        /// once (so every signal meets one wait, and none is left to drain by a system call).
        var hostWaits = false

        /// Answers arrived; true when the host must be woken for them.
        mutating func take(_ answers: [Arrived]) -> Bool {
            arrived.append(contentsOf: answers)
            defer { hostWaits = false }
            return hostWaits
        }
    }

    public let options: Options
    /// The client, or why none could be made (every request then fails with it).
    private let client: Result<HTTPClient, TransportError>
    private let state = Mutex(Shared())
    private let answered = DispatchSemaphore(value: 0)

    public init(options: Options = Options()) {
        self.options = options
        var configuration = HTTPClient.Configuration()
        configuration.maximumConnectionsPerOrigin = options.maximumConnectionsPerOrigin
        configuration.maximumPipelineDepth = options.maximumPipelineDepth
        configuration.readTimeout = options.requestTimeout
        // The SDK must see a fault its device would see: the request a dying connection was
        // answering fails; only those pipelined behind it go again.
        configuration.retry = .behindOldest
        client = Self.makeClient(configuration, trustingAlso: options.trustedCAFile)
    }

    private static func makeClient(
        _ configuration: HTTPClient.Configuration,
        trustingAlso ca: String?
    ) -> Result<HTTPClient, TransportError> {
        var configuration = configuration
        if let ca {
            do {
                configuration.tls = try TLSContext.client(trustingAlso: ca, alpn: ["http/1.1"])
            } catch {
                return .failure(TransportError("\(error)"))
            }
        }
        do {
            return .success(try HTTPClient(configuration: configuration))
        } catch {
            return .failure(TransportError(error.description))
        }
    }

    public func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        let url: HTTPURL
        do {
            url = try HTTPURL(parsing: request.url)
            _ = try client.get()
        } catch let error as HTTPURLError {
            return arriveAlone(completion, .failure(TransportError("the adapter cannot send to \(error)")))
        } catch {
            return arriveAlone(completion, .failure(error as? TransportError ?? TransportError("\(error)")))
        }
        let addressed = HTTPClient.AddressedRequest(Self.httpRequest(request, url), to: url)
        state.withLock { state in
            state.inFlight += 1
            state.unsent.append(addressed)
            state.unsentCompletions.append(completion)
        }
    }

    /// Hands every request sent so far to the client as one batch.
    public func startSending() {
        guard case .success(let http) = client else { return }
        let (batch, completions) = state.withLock { state in
            let taken = (state.unsent, state.unsentCompletions)
            state.unsent = []
            state.unsentCompletions = []
            return taken
        }
        guard !batch.isEmpty else { return }
        http.send(batch) { [self] results in
            var answers: [Arrived] = []
            answers.reserveCapacity(results.count)
            for (completion, result) in zip(completions, results) {
                answers.append(Arrived(completion: completion, result: Self.transportResult(result)))
            }
            if state.withLock({ $0.take(answers) }) { answered.signal() }
        }
    }

    public func runUntilIdle() {
        while true {
            startSending()
            let ready = state.withLock { state -> [Arrived]? in
                if state.arrived.isEmpty {
                    if state.inFlight == 0 { return nil }
                    state.hostWaits = true
                    return []
                }
                let taken = state.arrived
                state.arrived.removeAll(keepingCapacity: true)
                state.inFlight -= taken.count
                return taken
            }
            guard let ready else { break }
            if ready.isEmpty {
                answered.wait()
                continue
            }
            // Completions may send more (a device's next request); those go in the next batch.
            for answer in ready { answer.completion(answer.result) }
        }
    }

    /// A request that failed before it could be sent: its completion waits for the host too.
    private func arriveAlone(_ completion: @escaping @Sendable (TransportResult) -> Void, _ result: TransportResult) {
        let wake = state.withLock { state in
            state.inFlight += 1
            return state.take([Arrived(completion: completion, result: result)])
        }
        if wake { answered.signal() }
    }

    private static func transportResult(_ result: Result<ReceivedResponse, HTTPClientError>) -> TransportResult {
        switch result {
        case .success(let received):
            return .success(
                TransportResponse(
                    status: received.status,
                    headers: received.headers.fields.map { ($0.name, $0.value) },
                    body: received.body
                )
            )
        case .failure(let error):
            return .failure(TransportError(error.description))
        }
    }

    /// The SDK's request as HTTP: the URL's target, the adapter's User-Agent, the SDK's fields
    /// (`Host` and `Connection` belong to the client).
    static func httpRequest(_ request: TransportRequest, _ url: HTTPURL) -> HTTPRequest {
        var fields: [HTTPField] = []
        fields.reserveCapacity(request.headers.count + 1)
        fields.append(HTTPField("User-Agent", userAgent))
        for header in request.headers
        where !TransportResponse.namesEqual(header.name, "host")
            && !TransportResponse.namesEqual(header.name, "connection")
        {
            fields.append(HTTPField(header.name, header.value))
        }
        return HTTPRequest(
            method: request.method,
            target: url.target,
            headers: HTTPHeaders(fields: fields),
            body: request.body
        )
    }

    private static let userAgent = "lerix-swift-sdk/\(LerixConfiguration.currentSDKVersion) (adapter)"
}
