import HTTP
import HTTPClient
import JSON

/// ``ServerConnection`` to a server at `http://host:port` over the shared ``HTTPClient``
/// (keep-alive, IPv4 or IPv6), waiting for each answer: the runner is sequential by design.
///
/// ```swift
/// let server = try HTTPServerConnection(url: "http://127.0.0.1:8080")
/// try server.request("GET", "/admin/clock", body: nil)
/// ```
public final class HTTPServerConnection: ServerConnection {
    public let baseURL: String
    private let root: HTTPURL
    private let adminToken: String?
    private let http: BlockingHTTPClient

    public init(url: String, adminToken: String? = nil) throws(ServerFailure) {
        let parsed: HTTPURL
        do {
            parsed = try HTTPURL(parsing: url)
        } catch {
            throw ServerFailure("--server: \(error)")
        }
        guard !parsed.isSecure else { throw ServerFailure("--server takes an http:// URL, not '\(url)'") }
        guard parsed.pathPrefix.isEmpty, parsed.query == nil else {
            throw ServerFailure("--server takes the server's root URL (http://host:port), not '\(url)'")
        }
        root = parsed
        baseURL = parsed.description
        self.adminToken = adminToken
        var configuration = HTTPClient.Configuration()
        // One connection: admin calls are sequential, and the answers read in the order sent.
        configuration.maximumConnectionsPerOrigin = 1
        do {
            http = try BlockingHTTPClient(configuration: configuration)
        } catch {
            throw ServerFailure("no HTTP client for \(baseURL): \(error)")
        }
    }

    public func request(_ method: String, _ path: String, body: JSON?) throws(ServerFailure) -> ServerReply {
        var headers = HTTPHeaders([("Accept", "application/json")])
        if body != nil { headers.add("Content-Type", "application/json") }
        if let adminToken { headers.add("Authorization", "Bearer \(adminToken)") }
        let request = HTTPRequest(method: method, target: path, headers: headers, body: body?.serialized() ?? [])
        let received: ReceivedResponse
        do {
            received = try http.send(request, to: root)
        } catch {
            throw ServerFailure("\(method) \(path) to \(baseURL) failed: \(error)")
        }
        guard !received.body.isEmpty else { return ServerReply(status: received.status, json: nil) }
        return ServerReply(status: received.status, json: try? JSON.parse(received.body))
    }
}
