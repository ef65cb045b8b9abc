import Clock
import JSON
import ReleaseControl

/// One silent push: when, for which changes, to whom, and what each token's delivery did.
///
/// Built for fan-outs of 100,000 tokens whose results arrive in batches while the push is
/// watched: the targets are shared with the ``OutgoingPush`` (never copied), each result is one
/// byte (a reason is kept only for failures), and the counts are kept as results arrive. So
/// applying a batch copies about a byte per token, and a summary costs nothing per token.
///
/// ```swift
/// var record = PushRecord(id: 1, sentAt: now, changes: [3], targets: targets)
/// _ = record.apply([TokenDelivery(token: targets[0].token, result: .delivered, position: 0)])
/// record.counts.delivered          // 1
/// record.summaryJSON(project: "demo")   // what GET …/pushes lists
/// ```
public struct PushRecord: Sendable, Equatable {
    /// How many tokens are in each state.
    public struct Counts: Sendable, Equatable {
        public var pending = 0
        public var delivered = 0
        /// Failed or unregistered (the contract's `failed`).
        public var failed = 0
        public var unregistered = 0
        public var noGateway = 0
    }

    /// A result without its reason: what a byte per token stores.
    enum Outcome: UInt8, Sendable {
        case pending, delivered, failed, unregistered, noGateway
    }

    public var id: Int
    public var sentAt: Instant
    public var changes: [Int]
    /// The tokens, in the order the push went to them.
    public let targets: [PushTarget]
    public private(set) var counts: Counts
    /// Tokens per platform (fixed when the push is made).
    public let platformCounts: [(platform: Platform, count: Int)]
    private var outcomes: [Outcome]
    /// The reason of each failed or unregistered result, by position.
    private var reasons: [Int: String] = [:]
    /// Position of each token, built only when a result comes without a usable position.
    private var positions: [String: Int]?

    public init(id: Int, sentAt: Instant, changes: [Int], targets: [PushTarget]) {
        self.id = id
        self.sentAt = sentAt
        self.changes = changes
        self.targets = targets
        outcomes = [Outcome](repeating: .pending, count: targets.count)
        counts = Counts(pending: targets.count)
        let perPlatform = PlatformTally(targets)
        platformCounts = Platform.pushPlatforms.compactMap { p in perPlatform[p] > 0 ? (p, perPlatform[p]) : nil }
    }

    public static func == (a: PushRecord, b: PushRecord) -> Bool {
        a.id == b.id && a.sentAt == b.sentAt && a.changes == b.changes && a.targets == b.targets
            && a.outcomes == b.outcomes && a.reasons == b.reasons
    }

    /// The result of the token at `position` (in ``targets`` order).
    public func result(at position: Int) -> DeliveryResult {
        switch outcomes[position] {
        case .pending: return .pending
        case .delivered: return .delivered
        case .failed: return .failed(reason: reasons[position] ?? "")
        case .unregistered: return .unregistered(reason: reasons[position] ?? "")
        case .noGateway: return .noGateway
        }
    }

    /// Every token's result, in ``targets`` order.
    public var results: [DeliveryResult] { targets.indices.map(result(at:)) }

    public func count(_ predicate: (DeliveryResult) -> Bool) -> Int {
        targets.indices.reduce(0) { $0 + (predicate(result(at: $1)) ? 1 : 0) }
    }

    /// Applies reported results; returns the tokens the provider unregistered. A result whose
    /// `position` names its token is applied there; others are found by token.
    mutating func apply(_ deliveries: [TokenDelivery]) -> [String] {
        var unregistered: [String] = []
        for delivery in deliveries {
            guard let i = position(of: delivery) else { continue }
            set(i, delivery.result)
            if case .unregistered = delivery.result { unregistered.append(delivery.token) }
        }
        return unregistered
    }

    private mutating func position(of delivery: TokenDelivery) -> Int? {
        if let p = delivery.position, p >= 0, p < targets.count, targets[p].token == delivery.token { return p }
        if positions == nil {
            var index: [String: Int] = [:]
            index.reserveCapacity(targets.count)
            for (i, target) in targets.enumerated() { index[target.token] = i }
            positions = index
        }
        return positions?[delivery.token]
    }

    private mutating func set(_ i: Int, _ result: DeliveryResult) {
        adjust(outcomes[i], by: -1)
        let outcome: Outcome
        switch result {
        case .pending: outcome = .pending
        case .delivered: outcome = .delivered
        case .failed(let reason):
            outcome = .failed
            reasons[i] = reason
        case .unregistered(let reason):
            outcome = .unregistered
            reasons[i] = reason
        case .noGateway: outcome = .noGateway
        }
        if outcome != .failed && outcome != .unregistered, outcomes[i] == .failed || outcomes[i] == .unregistered {
            reasons[i] = nil
        }
        outcomes[i] = outcome
        adjust(outcome, by: 1)
    }

    private mutating func adjust(_ outcome: Outcome, by n: Int) {
        switch outcome {
        case .pending: counts.pending += n
        case .delivered: counts.delivered += n
        case .failed: counts.failed += n
        case .unregistered:
            counts.unregistered += n
            counts.failed += n
        case .noGateway: counts.noGateway += n
        }
    }

    /// The fields a summary and the full record share.
    private func headFields() -> [(String, JSON)] {
        var perPlatform = JSONObject()
        for (platform, n) in platformCounts { perPlatform[platform.rawValue] = .number(Double(n)) }
        return [
            ("id", .number(Double(id))),
            ("sent_at", .string(sentAt.rfc3339)),
            ("changes", .array(changes.map { .number(Double($0)) })),
            ("tokens", .object(perPlatform)),
            ("delivered", .number(Double(counts.delivered))),
            ("failed", .number(Double(counts.failed))),
            ("pending", .number(Double(counts.pending))),
            ("no_gateway", .number(Double(counts.noGateway))),
        ]
    }

    /// What `GET …/pushes` lists: the counts and where the per-token results are, never the
    /// results themselves (a poll during a fan-out of 100,000 tokens stays small).
    public func summaryJSON(project: String) -> JSON {
        .object(headFields() + [("results_url", .string(Self.resultsPath(project: project, id: id)))])
    }

    public static func resultsPath(project: String, id: Int) -> String {
        "/admin/projects/\(project)/pushes/\(id)/results"
    }

    /// One token's result as `GET …/pushes/{id}/results` and the state export show it.
    public func resultJSON(at position: Int) -> JSON {
        let target = targets[position]
        let result = result(at: position)
        var pairs: [(String, JSON)] = [
            ("token", .string(target.token)), ("platform", .string(target.platform.rawValue)),
            ("result", .string(result.name)),
        ]
        switch result {
        case .failed(let reason), .unregistered(let reason): pairs.append(("reason", .string(reason)))
        default: break
        }
        return .object(pairs)
    }

    /// The whole record with every token's result: the shape of `GET /admin/state` and of the
    /// durable store, which ``init(json:)`` reads back.
    public var json: JSON {
        .object(headFields() + [("results", .array(targets.indices.map(resultJSON(at:))))])
    }
}
