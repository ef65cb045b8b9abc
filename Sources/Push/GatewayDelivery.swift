import Clock
import JSON

/// One push the gateway accepted: what the scenario runner hands to the device owning `token`.
public struct GatewayDelivery: Sendable, Equatable {
    public var provider: PushProvider
    public var token: String
    public var at: Instant
    /// The APNs topic (bundle id), for APNs deliveries.
    public var topic: String?
    /// The FCM project, for FCM deliveries.
    public var project: String?
    /// `apns-priority` for APNs, the android priority (`high`/`normal`) for FCM, when given.
    public var priority: String?
    /// The request body as received.
    public var body: [UInt8]

    public init(
        provider: PushProvider,
        token: String,
        at: Instant,
        topic: String? = nil,
        project: String? = nil,
        priority: String? = nil,
        body: [UInt8] = []
    ) {
        self.provider = provider
        self.token = token
        self.at = at
        self.topic = topic
        self.project = project
        self.priority = priority
        self.body = body
    }

    /// As `GET /deliveries` lists it: the body shown as JSON when it parses.
    /// About what keeping this delivery costs in memory: its bytes and the fixed part of the
    /// value (the log's byte bound counts this).
    public var keptBytes: Int {
        256 + body.count + token.utf8.count + (topic?.utf8.count ?? 0) + (project?.utf8.count ?? 0)
            + (priority?.utf8.count ?? 0)
    }

    public var json: JSON {
        var pairs: [(String, JSON)] = [
            ("provider", .string(provider.rawValue)), ("token", .string(token)),
            ("at", .string(at.rfc3339)),
        ]
        if let topic { pairs.append(("topic", .string(topic))) }
        if let project { pairs.append(("project", .string(project))) }
        if let priority { pairs.append(("priority", .string(priority))) }
        pairs.append(("payload", (try? JSON.parse(body)) ?? .string(String(decoding: body, as: UTF8.self))))
        return .object(pairs)
    }
}
