import Clock
import HTTP
import MockServer
import Push

/// The server's ``PushSink`` without sockets: each token's APNs or FCM request goes straight
/// into a ``Responder`` (the runner's ``PushGateway``) and its answer is read as the providers'
/// answers are (``ProviderResponse``), so a refused token is `failed` or `unregistered` exactly as
/// over h2c. Answers come synchronously, so no push is ever in flight after `deliver` returns.
///
/// ```swift
/// let sink = ResponderPushSink(gateway: PushGateway(scheduler: clock), clock: clock)
/// ```
struct ResponderPushSink: PushSink {
    let gateway: any Responder
    let clock: any InstantSource

    func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        var results: [TokenDelivery] = []
        results.reserveCapacity(push.tokens.count)
        for (position, target) in push.tokens.enumerated() {
            results.append(TokenDelivery(token: target.token, result: deliver(target, of: push), position: position))
        }
        completion(results)
    }

    private func deliver(_ target: PushTarget, of push: OutgoingPush) -> DeliveryResult {
        let provider: PushProvider
        let request: HTTPRequest
        switch PushProvider.serving(platform: target.platform.rawValue) {
        case .apns?:
            guard let topic = push.apnsTopic, !topic.isEmpty else {
                return .failed(reason: "project \(push.project) has no apns_topic")
            }
            provider = .apns
            request = APNsRequest.silentPush(token: target.token, topic: topic)
        case .fcm?:
            guard let project = push.fcmProject, !project.isEmpty else {
                return .failed(reason: "project \(push.project) has no fcm_project")
            }
            provider = .fcm
            request = FCMRequest.silentPush(token: target.token, project: project)
        case nil:
            return .failed(reason: "\(target.platform.rawValue) has no push")
        }
        guard case .response(let response) = ResponderServerConnection.exchange(gateway, request) else {
            return .failed(reason: "the in-process gateway closed the exchange without answering")
        }
        switch ProviderResponse.verdict(
            provider,
            status: response.status,
            headers: response.headers,
            body: response.body,
            now: clock.now
        ) {
        case .delivered: return .delivered
        case .unregistered(let reason): return .unregistered(reason: reason)
        case .retryable(let reason, _), .rejected(let reason): return .failed(reason: reason)
        }
    }
}
