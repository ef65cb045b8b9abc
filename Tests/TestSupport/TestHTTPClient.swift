import HTTP
import HTTPClient

/// The HTTP client tests use to talk to a server: the real client layer (``BlockingHTTPClient``
/// over one keep-alive connection), waiting on the test's thread, a read timeout so a server bug
/// fails the test instead of hanging it. Every answer goes to ``ExchangeRecorder`` for httplint.
/// For raw bytes or one particular connection use ``TestConnection``.
///
/// ```swift
/// let client = try TestHTTPClient(port: server.port)
/// let response = try client.send(HTTPRequest(method: "GET", target: "/healthz"))
/// #expect(response.status == 200)
/// ```
public final class TestHTTPClient: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let http: BlockingHTTPClient
    private let origin: HTTPURL

    public init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 10) throws {
        origin = HTTPURL(scheme: .http, host: host, port: port)
        var configuration = HTTPClient.Configuration()
        configuration.maximumConnectionsPerOrigin = 1
        configuration.connectTimeout = .seconds(timeoutSeconds)
        configuration.readTimeout = .seconds(timeoutSeconds)
        do {
            http = try BlockingHTTPClient(configuration: configuration)
        } catch {
            throw Failure(description: "no HTTP client: \(error)")
        }
    }

    /// Sends `request` (the client adds `Host` and `Content-Length`) and waits for its answer.
    public func send(_ request: HTTPRequest) throws -> HTTPResponse {
        let request = request.withJSONTypeForAdminBody()
        let received: ReceivedResponse
        do {
            received = try http.send(request, to: origin)
        } catch {
            throw Failure(description: "\(request.method) \(request.target): \(error)")
        }
        var sent = request.headers
        if !sent.contains("Host") { sent.add("Host", origin.authority) }
        ExchangeRecorder.record(
            request: HTTPRequest(method: request.method, target: request.target, headers: sent),
            statusLine: received.statusLine,
            headers: received.headers,
            body: received.body
        )
        return received.response
    }
}

extension HTTPRequest {
    /// An admin body without a `Content-Type` gets `application/json`, as every client of the
    /// admin API must send (the server refuses other types: CONTRACT.md "Cross-site requests").
    /// Tests of that refusal set their own type.
    public func withJSONTypeForAdminBody() -> HTTPRequest {
        guard target.hasPrefix("/admin"), !body.isEmpty, !headers.contains("Content-Type") else { return self }
        var copy = self
        copy.headers.add("Content-Type", "application/json")
        return copy
    }
}
