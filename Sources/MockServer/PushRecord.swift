import Clock
import JSON
import ReleaseControl

/// One silent push as `GET /admin/projects/{project}/pushes` shows it: when, for which
/// changes, to whom, and what each token's delivery did.
public struct PushRecord: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var target: PushTarget
        public var result: DeliveryResult
    }

    public var id: Int
    public var sentAt: Instant
    public var changes: [Int]
    public var entries: [Entry]
    /// Index of each token in `entries`, so batch results apply in O(1) per token.
    private var positions: [String: Int]

    public init(id: Int, sentAt: Instant, changes: [Int], targets: [PushTarget]) {
        self.id = id
        self.sentAt = sentAt
        self.changes = changes
        entries = targets.map { Entry(target: $0, result: .pending) }
        var positions: [String: Int] = [:]
        for (i, target) in targets.enumerated() { positions[target.token] = i }
        self.positions = positions
    }

    /// Applies reported results; returns the tokens the provider unregistered.
    mutating func apply(_ deliveries: [TokenDelivery]) -> [String] {
        var unregistered: [String] = []
        for delivery in deliveries {
            guard let i = positions[delivery.token] else { continue }
            entries[i].result = delivery.result
            if case .unregistered = delivery.result { unregistered.append(delivery.token) }
        }
        return unregistered
    }

    public func count(_ predicate: (DeliveryResult) -> Bool) -> Int {
        entries.reduce(0) { $0 + (predicate($1.result) ? 1 : 0) }
    }

    public var json: JSON {
        var perPlatform = JSONObject()
        for platform in [Platform.ios, .android, .macos] {
            let n = entries.reduce(0) { $0 + ($1.target.platform == platform ? 1 : 0) }
            if n > 0 { perPlatform[platform.rawValue] = .number(Double(n)) }
        }
        let results: [JSON] = entries.map { entry in
            var pairs: [(String, JSON)] = [("token", .string(entry.target.token)),
                                           ("platform", .string(entry.target.platform.rawValue)),
                                           ("result", .string(entry.result.name))]
            switch entry.result {
            case .failed(let reason), .unregistered(let reason): pairs.append(("reason", .string(reason)))
            default: break
            }
            return .object(pairs)
        }
        return .object([
            ("id", .number(Double(id))),
            ("sent_at", .string(sentAt.rfc3339)),
            ("changes", .array(changes.map { .number(Double($0)) })),
            ("tokens", .object(perPlatform)),
            ("delivered", .number(Double(count { $0 == .delivered }))),
            ("failed", .number(Double(count {
                if case .failed = $0 { return true }
                if case .unregistered = $0 { return true }
                return false
            }))),
            ("pending", .number(Double(count { $0 == .pending }))),
            ("no_gateway", .number(Double(count { $0 == .noGateway }))),
            ("results", .array(results)),
        ])
    }
}
