/// Counters of what one SDK instance sent since it was created (not stored).
public struct LerixStatistics: Equatable, Sendable {
    /// Release control requests sent (an attempt while offline is not made, so not counted).
    public var checks = 0
    /// The 304s among them.
    public var notModified = 0
    /// Checks that got no usable answer (no response, a status but 200 and 304, an unreadable body); why the last one failed is
    /// ``LerixState/lastCheckFailure``.
    public var failedChecks = 0
    /// Items the ingest endpoint accepted, per module.
    public var sent: [LerixModule: Int] = [:]
    /// Successful push token registrations.
    public var tokenRegistrations = 0

    /// All zero.
    public init() {}
}
