/// How the push gateway is told to misbehave: per-token rejections, an outage for every
/// provider request, and a delay. Counts run down as answers are given.
///
/// ```swift
/// var controls = GatewayControls()
/// controls.reject(token: "ab12…", status: 410, reason: nil, count: nil)
/// controls.takeRejection(for: "ab12…")   // status 410, reason nil (the provider default)
/// ```
public struct GatewayControls: Sendable, Equatable {
    public struct Rejection: Sendable, Equatable {
        public var status: Int
        /// APNs `reason` / FCM `message`; nil uses the provider's usual one for the status.
        public var reason: String?
        /// Answers left before the token is accepted again; nil: until cleared.
        public var remaining: Int?
    }

    public struct Outage: Sendable, Equatable {
        public var status: Int
        public var retryAfterSeconds: Int?
        public var remaining: Int?
    }

    public private(set) var rejections: [String: Rejection] = [:]
    public private(set) var outage: Outage?
    public var delayMilliseconds: Int = 0

    public init() {}

    public mutating func reject(token: String, status: Int, reason: String?, count: Int?) {
        rejections[token] = Rejection(status: status, reason: reason, remaining: count)
    }

    public mutating func clearRejections() { rejections = [:] }

    public mutating func setOutage(status: Int, retryAfterSeconds: Int?, count: Int?) {
        outage = Outage(status: status, retryAfterSeconds: retryAfterSeconds, remaining: count)
    }

    public mutating func clearOutage() { outage = nil }

    public mutating func reset() { self = GatewayControls() }

    /// The outage answer for the next provider request, if any, counting it down.
    public mutating func takeOutage() -> Outage? {
        guard var o = outage else { return nil }
        if let r = o.remaining {
            if r <= 1 {
                outage = nil
            } else {
                o.remaining = r - 1
                outage = o
            }
        }
        return o
    }

    /// The rejection for `token`'s next request, if any, counting it down.
    public mutating func takeRejection(for token: String) -> Rejection? {
        guard !rejections.isEmpty, var r = rejections[token] else { return nil }
        if let left = r.remaining {
            if left <= 1 {
                rejections[token] = nil
            } else {
                r.remaining = left - 1
                rejections[token] = r
            }
        }
        return r
    }
}
