import ReleaseControl

/// Where silent pushes go. MockServer decides *when* to push and records *what* it sent; a sink
/// delivers it (APNs/FCM over HTTP/2 in the Push target) and reports each token's result.
///
/// `completion` may be called more than once, each time with the results of some tokens (a large
/// fan-out reports in batches); tokens never reported stay `pending`. It may be called on any
/// thread, synchronously inside `deliver` or later, but never while the caller holds a lock.
///
/// ```swift
/// struct LoggingSink: PushSink {
///     func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
///         completion(push.tokens.map { TokenDelivery(token: $0.token, result: .delivered) })
///     }
/// }
/// ```
public protocol PushSink: Sendable {
    func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void)
}

/// One token a push goes to.
public struct PushTarget: Sendable, Hashable {
    public var token: String
    /// `ios` and `macos` go through APNs, `android` through FCM; never `web`.
    public var platform: Platform

    public init(token: String, platform: Platform) {
        self.token = token
        self.platform = platform
    }
}

/// One silent push to every token of a project.
public struct OutgoingPush: Sendable {
    /// The push record's id (`GET /admin/projects/{project}/pushes`).
    public var id: Int
    public var project: String
    /// The APNs topic (bundle id); nil when the project has none configured.
    public var apnsTopic: String?
    /// The FCM project id; nil when the project has none configured.
    public var fcmProject: String?
    public var tokens: [PushTarget]

    public init(id: Int, project: String, apnsTopic: String?, fcmProject: String?, tokens: [PushTarget]) {
        self.id = id
        self.project = project
        self.apnsTopic = apnsTopic
        self.fcmProject = fcmProject
        self.tokens = tokens
    }
}

/// What happened to one token.
public enum DeliveryResult: Sendable, Equatable {
    case pending
    case delivered
    case failed(reason: String)
    /// The provider says the token is gone (APNs 410, FCM 404 UNREGISTERED): MockServer removes it.
    case unregistered(reason: String)
    /// No gateway is configured for the token's platform.
    case noGateway

    /// The wire name in push records.
    public var name: String {
        switch self {
        case .pending: return "pending"
        case .delivered: return "delivered"
        case .failed: return "failed"
        case .unregistered: return "unregistered"
        case .noGateway: return "no_gateway"
        }
    }
}

public struct TokenDelivery: Sendable, Equatable {
    public var token: String
    public var result: DeliveryResult
    /// The token's index in ``OutgoingPush/tokens``, when the sink kept it: the record then
    /// applies the result without looking the token up. Nil (or a wrong one): found by token.
    public var position: Int?

    public init(token: String, result: DeliveryResult, position: Int? = nil) {
        self.token = token
        self.result = result
        self.position = position
    }
}

/// The sink without gateways: every token is recorded as `no_gateway`, at once.
public struct NoGatewayPushSink: PushSink {
    public init() {}

    public func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        completion(push.tokens.enumerated().map { TokenDelivery(token: $1.token, result: .noGateway, position: $0) })
    }
}
