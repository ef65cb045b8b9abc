import Adapter
import Clock
import JSON
import LerixSDK
import Synchronization

/// A release control backend in memory for adapter tests: answers at the host's true time,
/// with ETags, 304s, ingest counts and push tokens.
final class Backend: Sendable {
    struct Contents {
        var now = Instant(millisecondsSinceEpoch: 0)
        var parts: JSONObject = JSONObject([
            ("required_update", .null), ("optional_update", .null), ("maintenance", .array([])),
            ("sdk_switch", .array([])),
        ])
        var lifetime = 300
        var ingest: [String: Int] = [:]
        var tokens: [String] = []
        var checks: [String] = []
        var down = false
    }

    let contents = Mutex(Contents())

    func update(_ change: (inout Contents) -> Void) { contents.withLock { change(&$0) } }
    func set(_ part: String, _ value: JSON) { contents.withLock { $0.parts[part] = value } }
    var ingest: [String: Int] { contents.withLock { $0.ingest } }
    var checks: [String] { contents.withLock { $0.checks } }
    var now: Instant { contents.withLock { $0.now } }

    func at(_ seconds: Int64) -> JSON { .string(now.adding(seconds: seconds).rfc3339) }

    func answer(_ request: TransportRequest) -> TransportResult {
        contents.withLock { c -> TransportResult in
            if c.down { return .failure(TransportError("connection refused")) }
            if request.url.contains("/ingest/") {
                let module = String(request.url.split(separator: "/").last ?? "")
                c.ingest[module, default: 0] += (try? JSON.parse(request.body))?.arrayValue?.count ?? 0
                return .success(TransportResponse(status: 202))
            }
            if request.url.contains("/push-tokens/") {
                c.tokens.append(String(request.url.split(separator: "/").last ?? ""))
                return .success(TransportResponse(status: 204))
            }
            c.checks.append(request.url)
            let etag =
                "W/\"\(JSON.object(c.parts).serializedString.utf8.reduce(UInt64(5381)) { $0 &* 33 &+ UInt64($1) })\""
            let headers = [
                ("ETag", etag), ("Cache-Control", "private, max-age=\(c.lifetime)"),
                ("Lerix-Server-Time", c.now.rfc3339),
            ]
            if request.header("If-None-Match") == etag {
                return .success(TransportResponse(status: 304, headers: headers))
            }
            var body = JSONObject([
                ("project", "demo"), ("server_time", .string(c.now.rfc3339)), ("lifetime", .number(Double(c.lifetime))),
            ])
            for (k, v) in c.parts { body[k] = v }
            return .success(TransportResponse(status: 200, headers: headers, body: JSON.object(body).serialized()))
        }
    }

    /// A host whose devices reach this backend, and whose true time the backend follows.
    func makeHost() -> AdapterHost {
        var options = AdapterHost.Options()
        options.timeMoved = { [self] instant in update { $0.now = instant } }
        return AdapterHost(network: TransportNetwork(InMemoryTransport { [self] in answer($0) }), options: options)
    }
}

extension JSON: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(elements) }
}

/// Sends commands with increasing ids and returns the answers.
final class Driver {
    let host: AdapterHost
    private var nextID = 0

    init(_ host: AdapterHost) { self.host = host }

    @discardableResult
    func send(_ command: String, _ fields: [(String, JSON)] = []) -> JSON {
        nextID += 1
        var object = JSONObject([("id", .number(Double(nextID))), ("cmd", .string(command))])
        for (k, v) in fields { object[k] = v }
        return host.handle(.object(object))
    }

    static let start = "2026-12-02T11:00:00.000Z"

    @discardableResult
    func create(
        _ device: String,
        platform: String = "ios",
        version: JSON = "2.3.0",
        offset: Double = 0,
        storage: String? = nil,
        pushToken: String? = nil,
        extra: [(String, JSON)] = []
    ) -> JSON {
        var config = JSONObject([
            ("base_url", "http://backend.test"), ("project", "demo"), ("platform", .string(platform)),
            ("app_version", version), ("build", "41"), ("sdk", "swift"), ("sdk_version", "1.4.0"),
            ("clock_offset_seconds", .number(offset)),
        ])
        if let storage { config["storage"] = .string(storage) }
        if let pushToken { config["push_token"] = .string(pushToken) }
        for (k, v) in extra { config[k] = v }
        return send("create", [("device", .string(device)), ("now", .string(Self.start)), ("config", .object(config))])
    }

    func state(_ device: String) -> JSON { send("state", [("device", .string(device))]) }

    func advance(seconds: Int64) {
        let target = host.now.adding(seconds: seconds)
        send("advance", [("to", .string(target.rfc3339))])
    }
}
