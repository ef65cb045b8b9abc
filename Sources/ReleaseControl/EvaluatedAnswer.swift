import Clock
import JSON

/// What one class of device gets from the check, ready to serve until ``validUntil``.
///
/// The bytes that do not depend on the moment of serving are made once here, so
/// serving is a copy plus the server time: cache the answer per device class
/// (``Device/evaluationClass``) and the project's ``ProjectState/revision``, and
/// evaluate again once ``isValid(at:)`` turns false.
///
/// ```swift
/// let answer = project.evaluate(device, now: clock.now)
/// if EntityTag.matches(ifNoneMatch: header, etag: answer.etag) { /* 304 */ }   // HTTP's EntityTag
/// let body = answer.body(project: project.key, serverTime: clock.now)
/// ```
public struct EvaluatedAnswer: Sendable {
    /// The project key the answer was evaluated for.
    public var project: String
    /// `required_update`, `optional_update`, `maintenance`, `sdk_switch`, in that order.
    public var state: JSON
    /// `W/"<16 hex digits>"`: FNV-1a 64 of the canonical state bytes (the body without
    /// `server_time` and `lifetime`), so it changes exactly when what the device sees does.
    public var etag: String
    /// 60 or 300 seconds.
    public var lifetime: Int
    /// The instant of evaluation: the answer holds from here…
    public var evaluatedAt: Instant
    /// …until this instant (exclusive), when state, ETag or lifetime may change by time
    /// alone; nil when time alone never changes it.
    public var validUntil: Instant?

    /// `{"project":"<key>","server_time":"`, for ``project``.
    let headBytes: [UInt8]
    /// `","lifetime":<n>,"required_update":…}`: everything after the server time.
    let tailBytes: [UInt8]

    public init(project: String, state: JSON, lifetime: Int, evaluatedAt: Instant, validUntil: Instant?) {
        self.project = project
        self.state = state
        self.lifetime = lifetime
        self.evaluatedAt = evaluatedAt
        self.validUntil = validUntil
        // The state object without its opening brace: `"required_update":…}`.
        let stateTail = state.serialized().dropFirst()
        let projectBytes = JSON.string(project).serialized()
        // Canonical bytes: the body without server_time and lifetime.
        var canonical: [UInt8] = Array(#"{"project":"#.utf8)
        canonical.append(contentsOf: projectBytes)
        canonical.append(UInt8(ascii: ","))
        canonical.append(contentsOf: stateTail)
        self.etag = "W/\"" + FNV1a64.hex(canonical) + "\""
        self.headBytes = Self.head(projectBytes: projectBytes)
        var tail: [UInt8] = Array(#"","lifetime":"#.utf8)
        tail.append(contentsOf: String(lifetime).utf8)
        tail.append(UInt8(ascii: ","))
        tail.append(contentsOf: stateTail)
        self.tailBytes = tail
    }

    static func head(projectBytes: [UInt8]) -> [UInt8] {
        var head: [UInt8] = Array(#"{"project":"#.utf8)
        head.append(contentsOf: projectBytes)
        head.append(contentsOf: #","server_time":""#.utf8)
        return head
    }

    /// True while this answer is still what evaluating at `now` would give (for the same
    /// project revision): `evaluatedAt <= now < validUntil`.
    public func isValid(at now: Instant) -> Bool {
        guard now >= evaluatedAt else { return false }
        guard let validUntil else { return true }
        return now < validUntil
    }

    /// The 200 body per the contract, fields in its order:
    /// `project, server_time, lifetime, required_update, optional_update, maintenance, sdk_switch`.
    public func body(project: String, serverTime: Instant) -> [UInt8] {
        body(project: project, serverTimeText: serverTime.rfc3339)
    }

    /// The same body with the server time already formatted (`Instant.rfc3339`), for a
    /// caller that formats it once for the `Lerix-Server-Time` header too: formatting the
    /// time is most of the cost of a body.
    public func body(project: String, serverTimeText: String) -> [UInt8] {
        let head = project == self.project ? headBytes : Self.head(projectBytes: JSON.string(project).serialized())
        var out: [UInt8] = []
        out.reserveCapacity(head.count + 24 + tailBytes.count)
        out.append(contentsOf: head)
        out.append(contentsOf: serverTimeText.utf8)
        out.append(contentsOf: tailBytes)
        return out
    }

    /// ``body(project:serverTime:)`` for the project the answer was evaluated for.
    public func body(serverTime: Instant) -> [UInt8] {
        body(project: project, serverTime: serverTime)
    }
}
