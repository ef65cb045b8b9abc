import Clock
import JSON

/// The answer of `GET /admin/clock` (and of `POST /admin/clock`): the server's time, its next
/// timer and the pushes still with the gateways.
public struct ServerClockState: Sendable, Equatable {
    public var now: Instant
    /// The server's next timer (a combined push), nil when none.
    public var nextDeadline: Instant?
    /// Pushes handed to the gateways whose tokens have not all got a result.
    public var pushesInFlight: Int

    public init(now: Instant, nextDeadline: Instant?, pushesInFlight: Int) {
        self.now = now
        self.nextDeadline = nextDeadline
        self.pushesInFlight = pushesInFlight
    }

    /// The answer's JSON, or what it lacks.
    public init(_ answer: JSON) throws(AdminAnswerError) {
        guard let text = answer["now"]?.stringValue, let now = Instant(rfc3339: text) else {
            throw AdminAnswerError("the server's clock did not answer {\"now\": <time>}: \(answer.serializedString)")
        }
        guard let inFlight = answer["pushes_in_flight"]?.intValue else {
            throw AdminAnswerError(
                "the server's clock answer has no pushes_in_flight (is it an older lerix-mock?): \(answer.serializedString)"
            )
        }
        self.now = now
        nextDeadline = answer["next_deadline"]?.stringValue.flatMap(Instant.init(rfc3339:))
        pushesInFlight = inFlight
    }
}
