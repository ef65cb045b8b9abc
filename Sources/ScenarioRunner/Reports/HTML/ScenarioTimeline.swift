/// What one scenario run looked like over virtual time, for the HTML report: one lane per
/// device (a group of devices is one lane with counts), the server's changes and pushes on a
/// shared axis, and the failing step. Times are milliseconds since the scenario's time 0.
///
/// ```swift
/// let lane = timeline.lanes[0]
/// lane.screens.last?.counts    // ["required_update": 250]
/// ```
public struct ScenarioTimeline: Sendable {
    public struct Lane: Sendable {
        /// A device's name, or a group's.
        public var name: String
        /// What the lane stands for: "ios 2.3.0" or "250 devices: ios".
        public var summary: String
        public var deviceCount: Int
        /// Screen states seen after each step: how many (sampled) devices showed each.
        public var screens: [(at: Int64, counts: [String: Int])] = []
        /// How many of the lane's devices were offline, from each change on.
        public var offline: [(at: Int64, count: Int)] = []
        /// Checks the server journaled for the lane's devices (by their attributes).
        public var checks: [Check] = []
        /// Silent pushes as they reached (or missed) the lane's devices.
        public var pushes: [(at: Int64, push: Int, outcome: PushOutcome)] = []
    }

    public struct Check: Sendable {
        public var at: Int64
        /// 0 when a reset fault dropped the connection.
        public var status: Int
        public var lifetime: Int?
        public var etag: String?
        public var fault: String?
    }

    public enum PushOutcome: String, Sendable {
        case received
        case lostOffline = "lost (offline)"
        case ignoredNotRunning = "ignored (app not running)"
        case dropped
    }

    /// Something the scenario did to the server (a rule, a fault, a token) at a step.
    public struct ServerEvent: Sendable {
        public var at: Int64
        public var label: String
    }

    public struct Failure: Sendable {
        public var at: Int64
        public var step: Int
        public var text: String
        public var location: String
        /// "expected …, seen …", as the runner reports it.
        public var message: String
    }

    public var durationMilliseconds: Int64 = 0
    public var lanes: [Lane] = []
    public var serverEvents: [ServerEvent] = []
    public var pushesSent: [(at: Int64, id: Int, tokens: Int)] = []
    public var failure: Failure?
    /// Devices the report stands for without drawing each (large fleets are sampled).
    public var sampledPerLane: Int?

    public init() {}
}
