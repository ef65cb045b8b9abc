import Dispatch
import HTTP
import JSON
import MockServer
import Synchronization

/// ``ServerConnection`` straight into a ``Responder`` (the in-process MockServer): the same
/// admin API as over HTTP, without sockets.
///
/// ```swift
/// let connection = ResponderServerConnection(responder: mockServer, baseURL: "http://lerix.test")
/// try connection.request("GET", "/admin/clock", body: nil)
/// ```
public final class ResponderServerConnection: ServerConnection, Sendable {
    public let baseURL: String
    let responder: any Responder

    public init(responder: any Responder, baseURL: String) {
        self.responder = responder
        self.baseURL = baseURL
    }

    public func request(_ method: String, _ path: String, body: JSON?) throws(ServerFailure) -> ServerReply {
        var headers = HTTPHeaders()
        headers.set("Host", "lerix.test")
        if body != nil { headers.set("Content-Type", "application/json") }
        let request = HTTPRequest(method: method, target: path, headers: headers, body: body?.serialized() ?? [])
        guard case .response(let response) = Self.exchange(responder, request) else {
            throw ServerFailure("\(method) \(path): the in-process server closed the exchange without answering")
        }
        let json = response.body.isEmpty ? nil : try? JSON.parse(response.body)
        return ServerReply(status: response.status, json: json)
    }

    /// The in-process MockServer's own count: reading the journal back through the admin API
    /// to count it cost a fleet more than its checks did (and stopped at the listing's bound).
    public func checksAnswered(project: String) -> Int? {
        (responder as? MockServer)?.checksJournaled(project: project)
    }

    /// The in-process MockServer's clock, as `GET /admin/clock` reads it: the runner reads it at
    /// every stop of every time move, and the JSON both ways cost explore 18% of a history.
    public func clockReading() -> MockServer.ClockReading? {
        (responder as? MockServer)?.clockReading
    }

    /// The in-process MockServer's journal lines, as `GET /admin/requests` lists them.
    public func checksJournaled(project: String, after count: Int) -> (lines: [RequestJournal.Entry], total: Int)? {
        (responder as? MockServer)?.checksJournaled(project: project, after: count)
    }

    /// One request through a responder in this process, waiting for its reply however long the
    /// machine takes to give it. Most come before `respond` returns; the rest from the
    /// responder's own queue (MockServer's large admin bodies) or its own real-time timer (a
    /// gateway's `delay`), never from the manual clock the caller moves. So every reply comes,
    /// and a wall-clock limit here (it was 30 s) could only fail a virtual-time run because the
    /// process was starved, never because of the scenario.
    static func exchange(_ responder: any Responder, _ request: HTTPRequest) -> HTTPReply {
        let box = Mutex<HTTPReply?>(nil)
        let done = DispatchSemaphore(value: 0)
        responder.respond(to: request) { reply in
            box.withLock { $0 = $0 ?? reply }
            done.signal()
        }
        if let given = box.withLock({ $0 }) { return given }
        done.wait()
        return box.withLock { $0 } ?? .close
    }
}
