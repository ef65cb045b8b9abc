import AdminClient
import JSON
import MockServer

/// The seam to the mock server's admin API (CONTRACT.md): the runner sets the clock, edits
/// rules and reads the journal, pushes and ingest counts through it.
///
/// ```swift
/// let clock = try server.admin(Admin.setClock(to: t))   // AdminClient's typed calls
/// ```
public protocol ServerConnection: AnyObject {
    func request(_ method: String, _ path: String, body: JSON?) throws(ServerFailure) -> ServerReply
    /// The base URL devices use to reach the server.
    var baseURL: String { get }
    /// Checks of `project` the server answered since its last reset, when the connection can
    /// tell without reading the journal (an in-process server); nil otherwise.
    func checksAnswered(project: String) -> Int?
    /// What `GET /admin/clock` answers, when the connection can read it without HTTP or JSON
    /// (an in-process server); nil otherwise.
    func clockReading() -> MockServer.ClockReading?
    /// The journal lines of `project` after the first `count` since the last reset, oldest first,
    /// and how many there are in all, when the connection can read them without HTTP or JSON
    /// (an in-process server); nil otherwise.
    func checksJournaled(project: String, after count: Int) -> (lines: [RequestJournal.Entry], total: Int)?
}

public struct ServerReply: Sendable {
    public var status: Int
    public var json: JSON?
    public init(status: Int, json: JSON?) {
        self.status = status
        self.json = json
    }
}

/// The server could not be reached, or answered an admin call with an error.
public struct ServerFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension ServerConnection {
    /// Over HTTP the journal is the only account (``ScenarioExecution/journal(for:)``).
    public func checksAnswered(project: String) -> Int? { nil }
    /// Over HTTP the clock is read with `GET /admin/clock`.
    public func clockReading() -> MockServer.ClockReading? { nil }
    /// Over HTTP the journal is read with `GET /admin/requests` (``JournalTail``).
    public func checksJournaled(project: String, after count: Int) -> (lines: [RequestJournal.Entry], total: Int)? {
        nil
    }

    /// An admin call that must succeed (2xx): its answer as the call reads it. The server's
    /// problem detail, or an answer without the call's shape, becomes the message.
    @discardableResult
    func admin<Answer>(_ call: AdminCall<Answer>) throws(ServerFailure) -> Answer {
        let json = try succeeding(call.method, call.path, call.body)
        do {
            return try call.answer(from: json)
        } catch {
            throw ServerFailure(error.message)
        }
    }

    /// A call whose status the caller judges (a step may expect a refusal).
    func request<Answer>(_ call: AdminCall<Answer>) throws(ServerFailure) -> ServerReply {
        try request(call.method, call.path, body: call.body)
    }

    private func succeeding(_ method: String, _ path: String, _ body: JSON?) throws(ServerFailure) -> JSON {
        let reply = try request(method, path, body: body)
        guard (200..<300).contains(reply.status) else {
            var detail = reply.json?["detail"]?.stringValue ?? reply.json?.serializedString ?? ""
            if let errors = reply.json?["errors"]?.arrayValue {
                detail +=
                    " "
                    + errors.map { "\($0["pointer"]?.stringValue ?? ""): \($0["message"]?.stringValue ?? "")" }.joined(
                        separator: "; "
                    )
            }
            throw ServerFailure("\(method) \(path) answered \(reply.status): \(detail)")
        }
        return reply.json ?? .null
    }
}
