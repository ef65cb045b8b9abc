import Clock

/// What release control decides for one device at one instant, as values: the update it is
/// asked to take, the maintenance windows and SDK switches that concern it, how long the answer
/// may be kept, and until when time alone leaves it unchanged. No JSON here: the server writes
/// the wire form at its edge (MockServer's `ServedAnswer`).
///
/// ```swift
/// let evaluation = project.evaluate(device, now: clock.now)
/// evaluation.requiredUpdate?.rule      // "r3"
/// evaluation.isValid(at: later)        // false once a deadline, window or switch end passes
/// ```
public struct Evaluation: Sendable, Equatable {
    /// An update the device is asked to take, and the rule that asks for it.
    public struct Update: Sendable, Equatable {
        public var rule: String
        public var update: UpdateRule
        /// For a recommended update before its deadline: when it becomes required. nil for an
        /// optional update, and for a required one (a recommended update past its deadline is required).
        public var becomesRequiredOn: Instant?

        public init(rule: String, update: UpdateRule, becomesRequiredOn: Instant? = nil) {
            self.rule = rule
            self.update = update
            self.becomesRequiredOn = becomesRequiredOn
        }
    }

    /// A maintenance window that has not ended, for the device's platform.
    public struct Window: Sendable, Equatable {
        public var rule: String
        public var window: MaintenanceWindow
    }

    /// An SDK switch that has not ended and matches the device's SDK.
    public struct Switch: Sendable, Equatable {
        public var rule: String
        public var sdkSwitch: SDKSwitch
    }

    /// The project key evaluated.
    public var project: String
    /// The required update with the highest `below` the device is under, if any.
    public var requiredUpdate: Update?
    /// The optional or recommended update with the highest `below`; nil whenever an update is required.
    public var optionalUpdate: Update?
    /// Sorted by start, then end, then creation.
    public var maintenance: [Window]
    /// In creation order.
    public var sdkSwitches: [Switch]
    /// 60 or 300 seconds.
    public var lifetime: Int
    /// The instant of evaluation: the answer holds from here…
    public var evaluatedAt: Instant
    /// …until this instant (exclusive), when the answer or its lifetime may change by time alone;
    /// nil when time alone never changes it.
    public var validUntil: Instant?

    public init(
        project: String,
        requiredUpdate: Update?,
        optionalUpdate: Update?,
        maintenance: [Window],
        sdkSwitches: [Switch],
        lifetime: Int,
        evaluatedAt: Instant,
        validUntil: Instant?
    ) {
        self.project = project
        self.requiredUpdate = requiredUpdate
        self.optionalUpdate = optionalUpdate
        self.maintenance = maintenance
        self.sdkSwitches = sdkSwitches
        self.lifetime = lifetime
        self.evaluatedAt = evaluatedAt
        self.validUntil = validUntil
    }

    /// True while this is still what evaluating at `now` would give (for the same project
    /// revision): `evaluatedAt <= now < validUntil`.
    public func isValid(at now: Instant) -> Bool {
        guard now >= evaluatedAt else { return false }
        guard let validUntil else { return true }
        return now < validUntil
    }
}
