import Dispatch
import HTTP
import Synchronization

/// ``HTTPClient`` for a caller that must wait for the answer on its own thread (a test, a CLI
/// command, a scenario step). The wait is a semaphore on the caller's thread; the work runs on
/// the client's reactor. Called on that reactor's own queue it would wait for itself forever,
/// so it refuses with ``HTTPClientError/cancelled(_:)`` instead.
///
/// ```swift
/// let http = try BlockingHTTPClient()
/// let answer = try http.send(HTTPRequest(method: "GET", target: "/healthz"),
///                            to: try HTTPURL(parsing: "http://127.0.0.1:8080/"))
/// print(answer.status, String(decoding: answer.body, as: UTF8.self))
/// ```
public struct BlockingHTTPClient: Sendable {
    public let client: HTTPClient

    public init(_ client: HTTPClient) {
        self.client = client
    }

    public init(configuration: HTTPClient.Configuration = HTTPClient.Configuration()) throws(HTTPClientError) {
        self.client = try HTTPClient(configuration: configuration)
    }

    /// Sends `request` to the origin of `url` and waits for the answer (or the error).
    public func send(_ request: HTTPRequest, to url: HTTPURL) throws(HTTPClientError) -> ReceivedResponse {
        guard !client.reactor.isCurrent else {
            throw .cancelled(
                "BlockingHTTPClient called on its reactor's own queue, where it would wait for itself; use HTTPClient.send with a completion there"
            )
        }
        let box = ResultBox()
        client.send(request, to: url) { result in
            box.result.withLock { $0 = result }
            box.done.signal()
        }
        box.done.wait()
        return try box.result.withLock { $0 ?? .failure(.cancelled("no answer")) }.get()
    }

    /// `GET` of `url`'s target.
    public func get(_ url: HTTPURL, headers: HTTPHeaders = HTTPHeaders()) throws(HTTPClientError) -> ReceivedResponse {
        try send(HTTPRequest(method: "GET", target: url.target, headers: headers), to: url)
    }
}

private final class ResultBox: Sendable {
    let result = Mutex<Result<ReceivedResponse, HTTPClientError>?>(nil)
    let done = DispatchSemaphore(value: 0)
}
