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
    /// Answers one request.
    public typealias Handler = @Sendable (TransportRequest) -> TransportResult

    private let state: Mutex<(handler: Handler, requests: [TransportRequest])>

    /// Answers with `handler` (by default every request fails with "no handler").
    public init(_ handler: @escaping Handler = { _ in .failure(TransportError("no handler")) }) {
        state = Mutex((handler, []))
    }

    /// Every request sent so far, oldest first.
    public var requests: [TransportRequest] { state.withLock { $0.requests } }

    /// Replaces the closure that answers from now on.
    public func setHandler(_ handler: @escaping Handler) {
        state.withLock { $0.handler = handler }
    }

    /// Forgets the recorded requests.
    public func clearRequests() {
        state.withLock { $0.requests.removeAll() }
    }

    /// Records `request` and answers it at once, before returning.
    public func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        let handler = state.withLock { s -> Handler in
            s.requests.append(request)
            return s.handler
        }
        completion(handler(request))
    }
}
