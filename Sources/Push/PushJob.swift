import Dispatch
import HTTP2
import HTTPClient
import MockServer

/// One push's share of work on one gateway client: its tokens, and the results waiting to be
/// reported. Results go to MockServer in batches (a full batch, the last token, or a short
/// interval after the first unreported one), on the sink's results queue, never on the I/O queue.
/// Confined to the client's queue.
///
/// Its stored state is confined to one queue and touched for every pushed token, so each stored
/// property is `@exclusivity(unchecked)`: release builds skip the run-time exclusivity checks
/// there without an unsafe build flag, which SwiftPM refuses in a dependency pinned by version.
final class PushJob: @unchecked Sendable {
    let pushID: Int
    /// APNs topic or FCM project.
    let destination: String
    let completion: @Sendable ([TokenDelivery]) -> Void
    @exclusivity(unchecked) private(set) var remaining: Int
    /// An eighth of the push (at least 1024, at most the configured batch): a large fan-out
    /// reports in about eight batches however fast it goes.
    let batchSize: Int
    @exclusivity(unchecked) private var buffer: [TokenDelivery] = []
    @exclusivity(unchecked) private var flushScheduled = false
    /// The fixed part of this push's requests, and the authorization it was made with.
    @exclusivity(unchecked) private var requestTemplate: (template: HTTP2RequestTemplate, authorization: String?)?

    init(
        pushID: Int,
        destination: String,
        tokenCount: Int,
        maxBatch: Int,
        completion: @escaping @Sendable ([TokenDelivery]) -> Void
    ) {
        self.batchSize = min(max(1, maxBatch), max(1024, tokenCount / 8))
        self.pushID = pushID
        self.destination = destination
        self.remaining = tokenCount
        self.completion = completion
    }

    /// The template for this push's requests with `authorization`: the one made before while
    /// the authorization stays the same (APNs and FCM tokens last minutes), else a new one from `make`.
    func template(authorization: String?, make: (String?) -> HTTP2RequestTemplate) -> HTTP2RequestTemplate {
        if let cached = requestTemplate, cached.authorization == authorization { return cached.template }
        let template = make(authorization)
        requestTemplate = (template, authorization)
        return template
    }

    func record(_ token: String, at position: Int, _ outcome: TokenOutcome, client: GatewayClient) {
        assertConfined(to: client)
        // A batch's room is made once, not by doubling as it fills (a copy of every result
        // so far at each doubling).
        if buffer.isEmpty { buffer.reserveCapacity(min(batchSize, remaining)) }
        remaining -= 1
        buffer.append(TokenDelivery(token: token, result: outcome.deliveryResult, position: position))
        if buffer.count >= batchSize || remaining == 0 {
            flush(for: client)
        } else if !flushScheduled {
            flushScheduled = true
            let interval = HTTPClient.Configuration.nanoseconds(client.configuration.resultFlushInterval)
            client.queue.asyncAfter(deadline: .now() + .nanoseconds(Int(interval))) { [self] in
                flushScheduled = false
                flush(for: client)
            }
        }
    }

    /// Hands the buffered results to MockServer on the client's results queue.
    func flush(for client: GatewayClient) {
        assertConfined(to: client)
        let queue = client.resultsQueue
        guard !buffer.isEmpty else { return }
        let batch = buffer
        buffer = []
        let completion = self.completion
        queue.async { completion(batch) }
    }

    /// Debug builds check the confinement the `@unchecked Sendable` relies on.
    @inline(__always)
    private func assertConfined(to client: GatewayClient) {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(client.queue))
        #endif
    }
}

extension TokenOutcome {
    /// MockServer's name for the outcome.
    var deliveryResult: DeliveryResult {
        switch self {
        case .delivered: return .delivered
        case .failed(let reason): return .failed(reason: reason)
        case .unregistered(let reason): return .unregistered(reason: reason)
        }
    }
}
