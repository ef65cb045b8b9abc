import Synchronization

/// The in-memory twin of ``Transport``: a closure answers each request at once, and every
/// request is recorded for assertions.
///
/// ```swift
/// let transport = InMemoryTransport { request in
///     .success(TransportResponse(status: 304, headers: [("ETag", #"W/"1""#)]))
/// }
/// ```
public final class InMemoryTransport: Transport {
    public typealias Handler = @Sendable (TransportRequest) -> TransportResult

    private let state: Mutex<(handler: Handler, requests: [TransportRequest])>

    public init(_ handler: @escaping Handler = { _ in .failure(TransportError("no handler")) }) {
        state = Mutex((handler, []))
    }

    /// Every request sent so far, oldest first.
    public var requests: [TransportRequest] { state.withLock { $0.requests } }

    /// Replaces the closure that answers from now on.
    public func setHandler(_ handler: @escaping Handler) {
        state.withLock { $0.handler = handler }
    }

    public func clearRequests() {
        state.withLock { $0.requests.removeAll() }
    }

    public func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        let handler = state.withLock { s -> Handler in
            s.requests.append(request)
            return s.handler
        }
        completion(handler(request))
    }
}
