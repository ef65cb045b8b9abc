extension ReleaseControlMachine {
    /// Where the app is. Foreground implies running: no flag pair can say "foreground, not running".
    package enum AppPhase: Equatable, Sendable {
        /// Not launched, or terminated: no check, no timer, nothing in flight.
        case stopped
        case background
        case foreground
    }

    /// The check request's lifecycle. A follow-up is owed only while a check is in flight.
    package enum CheckPhase: Equatable, Sendable {
        /// No check in flight.
        case idle
        /// A check is in flight. `followUp`: a push or `refresh` came after it left, saying the
        /// state may have changed since, so one more check follows its answer.
        case inFlight(followUp: Bool)
    }

    /// A check wanted while offline, sent on reconnecting.
    package enum MissedCheck: Equatable, Sendable {
        case none
        /// `followUp`: a push or `refresh` wanted it, so it must not join a check in flight.
        case owed(followUp: Bool)
    }

    /// The push token registration: due once per launch (with a token and push support),
    /// until the server accepts it. In flight implies due.
    package enum TokenRegistration: Equatable, Sendable {
        case notDue
        case due
        case inFlight
    }
}
