import HTTP
import JSON

/// The gateway's own endpoints: the delivery log, the controls, stats and an index.
extension PushGateway {
    static let index = """
        lerix-mock push-gateway: a stand-in for APNs and FCM (h2c with prior knowledge, and HTTP/1.1)

          POST   /3/device/<hex token>                     APNs (apns-topic, apns-push-type, apns-priority)
          POST   /v1/projects/<project>/messages:send      FCM HTTP v1
          GET    /deliveries[?token=&provider=&limit=&after=]   accepted pushes, oldest first, 1000 a page
          DELETE /deliveries                               clear them (and /stats)
          POST   /control/reject {"token","status","reason"?,"count"?}   reject one token
          DELETE /control/reject                           accept every token again
          POST   /control/unavailable {"status"?:503,"retry_after"?,"count"?}   fail every push
          DELETE /control/unavailable                      end the outage
          POST   /control/delay {"milliseconds": N}        answer pushes late (0: on time)
          GET    /control                                  the controls in force
          DELETE /control                                  clear every control
          GET    /stats                                    request counts, in-flight high-water mark
          GET    /healthz                                  200

        """

    func control(_ request: HTTPRequest, path: String) -> HTTPResponse {
        if Self.isGuarded(path), let refusal = crossSite.refusal(for: request) {
            var response = Self.problem(refusal.status, HTTPResponse.reasonPhrase(refusal.status), refusal.detail)
            for field in refusal.headers { response.headers.add(field.name, field.value) }
            return response
        }
        switch (request.method, path) {
        case ("GET", "/"), ("HEAD", "/"):
            var response = HTTPResponse(status: 200, body: Array(Self.index.utf8))
            response.headers.add("content-type", "text/plain; charset=utf-8")
            response.headers.add("cache-control", CacheDirective.document)
            return response
        case ("GET", "/healthz"):
            return Self.json(200, .object([("status", "ok")]))
        case ("GET", "/deliveries"):
            return listDeliveries(request)
        case ("DELETE", "/deliveries"):
            clearDeliveries()
            return HTTPResponse(status: 204)
        case ("GET", "/stats"):
            let s = state.withLock { s in (s.requests, s.accepted, s.refused, s.inFlight, s.maxInFlight) }
            return Self.json(
                200,
                .object([
                    ("requests", .number(Double(s.0))), ("accepted", .number(Double(s.1))),
                    ("refused", .number(Double(s.2))),
                    ("in_flight", .number(Double(s.3))), ("max_in_flight", .number(Double(s.4))),
                ])
            )
        case ("GET", "/control"):
            return Self.json(200, controlsJSON(controls))
        case ("DELETE", "/control"):
            resetControls()
            return HTTPResponse(status: 204)
        case ("POST", "/control/reject"):
            return postReject(request)
        case ("DELETE", "/control/reject"):
            state.withLock { $0.controls.clearRejections() }
            return HTTPResponse(status: 204)
        case ("POST", "/control/unavailable"):
            return postUnavailable(request)
        case ("DELETE", "/control/unavailable"):
            state.withLock { $0.controls.clearOutage() }
            return HTTPResponse(status: 204)
        case ("POST", "/control/delay"):
            return postDelay(request)
        default:
            if let allowed = Self.allowedMethods[path] {
                var response = Self.problem(
                    405,
                    "Method Not Allowed",
                    "\(request.method) is not allowed on \(path); allowed: \(allowed); see GET /"
                )
                response.headers.add("allow", allowed)  // RFC 9110 §15.5.6: a 405 says what is allowed
                return response
            }
            return Self.problem(404, "Not Found", "no endpoint \(path); see GET / for the list")
        }
    }

    /// The endpoints a page must not reach: every control (a write changes how pushes are
    /// answered), the delivery log (it holds device tokens) and its counters. The provider
    /// endpoints, `/healthz` and the index stay open, as the real services' are.
    static func isGuarded(_ path: String) -> Bool {
        path == "/control" || path.hasPrefix("/control/") || path == "/deliveries" || path == "/stats"
    }

    /// Deliveries per page unless `limit` says otherwise, and the most one page may hold: an
    /// answer never grows with the log (250k records once made one 1.4 GB answer).
    static let defaultDeliveryPage = 1000
    static let maxDeliveryPage = 10_000
    /// About the most bytes of deliveries one page holds, whatever `limit` says (10,000 kept FCM
    /// deliveries once made a 166 MB answer); `next` continues.
    static let maxDeliveryPageBytes = 4 << 20
    /// Tokens with a rejection armed at once, and the longest token and reason taken: `GET
    /// /control` lists them all, so they bound its answer (120 huge tokens once made 45 MB).
    static let maxRejections = 10_000
    static let maxRejectionTokenBytes = 512
    static let maxRejectionReasonBytes = 256

    /// `GET /deliveries[?token=&provider=&limit=&after=]`: one page, oldest first; `next` is
    /// the link to the following page (the same filters, `after` the last `seq` shown), or null.
    func listDeliveries(_ request: HTTPRequest) -> HTTPResponse {
        let token = request.query("token")
        var provider: PushProvider?
        if let p = request.query("provider") {
            guard let known = PushProvider(rawValue: p) else {
                return Self.problem(400, "Bad Request", "provider must be apns or fcm")
            }
            provider = known
        }
        var limit = Self.defaultDeliveryPage
        if let l = request.query("limit") {
            guard let n = Int(l), (1...Self.maxDeliveryPage).contains(n) else {
                return Self.problem(
                    400,
                    "Bad Request",
                    "limit must be a whole number from 1 to \(Self.maxDeliveryPage)"
                )
            }
            limit = n
        }
        var after = 0
        if let a = request.query("after") {
            guard let n = Int(a), n >= 0 else {
                return Self.problem(
                    400,
                    "Bad Request",
                    "after must be a delivery's seq (a whole number), as the next link gives it"
                )
            }
            after = n
        }
        let (page, more, total, dropped) = state.withLock { s in
            let found = s.log.page(after: after, limit: limit, maxBytes: Self.maxDeliveryPageBytes) { d in
                (token == nil || d.token == token) && (provider == nil || d.provider == provider)
            }
            return (found.items, found.more, s.log.total, s.log.dropped)
        }
        var next = JSON.null
        if more, let last = page.last {
            var query = ["after=\(last.sequence)", "limit=\(limit)"]
            if let provider { query.append("provider=\(provider.rawValue)") }
            if let token { query.append("token=" + Self.queryEscaped(token)) }
            next = .string("/deliveries?" + query.joined(separator: "&"))
        }
        return Self.json(
            200,
            .object([
                (
                    "deliveries",
                    .array(
                        page.map { item in
                            var json = item.delivery.json
                            if case .object(var object) = json {
                                object = JSONObject(
                                    [("seq", .number(Double(item.sequence)))] + object.pairs.map { ($0.key, $0.value) }
                                )
                                json = .object(object)
                            }
                            return json
                        }
                    )
                ),
                ("total", .number(Double(total))),
                ("dropped", .number(Double(dropped))),
                ("next", next),
            ])
        )
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986), for the next link.
    static func queryEscaped(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    func postReject(_ request: HTTPRequest) -> HTTPResponse {
        let body: JSONObject
        switch Self.object(request.body) {
        case .success(let o): body = o
        case .failure(let p): return p.response
        }
        guard let token = body["token"]?.stringValue, !token.isEmpty else {
            return Self.problem(422, "Unprocessable Content", "token (a non-empty string) is required")
        }
        guard token.utf8.count <= Self.maxRejectionTokenBytes else {
            return Self.problem(
                422,
                "Unprocessable Content",
                "token is at most \(Self.maxRejectionTokenBytes) bytes (APNs tokens are 64, FCM tokens about 160)"
            )
        }
        guard let status = body["status"]?.intValue, (400...599).contains(status) else {
            return Self.problem(
                422,
                "Unprocessable Content",
                "status must be an error status from 400 to 599, e.g. 410"
            )
        }
        var reason: String?
        if let r = body["reason"], !r.isNull {
            guard let text = r.stringValue else { return Self.problem(400, "Bad Request", "reason must be a string") }
            guard text.utf8.count <= Self.maxRejectionReasonBytes else {
                return Self.problem(
                    422,
                    "Unprocessable Content",
                    "reason is at most \(Self.maxRejectionReasonBytes) bytes"
                )
            }
            reason = text
        }
        let count: Int?
        switch Self.count(body) {
        case .success(let c): count = c
        case .failure(let p): return p.response
        }
        let armed = state.withLock { s -> Bool in
            guard s.controls.rejections[token] != nil || s.controls.rejections.count < Self.maxRejections else {
                return false
            }
            s.controls.reject(token: token, status: status, reason: reason, count: count)
            return true
        }
        guard armed else {
            return Self.problem(
                422,
                "Unprocessable Content",
                "\(Self.maxRejections) tokens already have a rejection armed; DELETE /control/reject clears them"
            )
        }
        return HTTPResponse(status: 204)
    }

    func postUnavailable(_ request: HTTPRequest) -> HTTPResponse {
        let body: JSONObject
        switch Self.object(request.body.isEmpty ? Array("{}".utf8) : request.body) {
        case .success(let o): body = o
        case .failure(let p): return p.response
        }
        var status = 503
        if let s = body["status"] {
            guard let v = s.intValue, v == 429 || (500...599).contains(v) else {
                return Self.problem(422, "Unprocessable Content", "status must be 429 or 5xx")
            }
            status = v
        }
        var retryAfter: Int?
        if let r = body["retry_after"], !r.isNull {
            guard let v = r.intValue, v >= 0 else {
                return Self.problem(422, "Unprocessable Content", "retry_after is whole seconds")
            }
            retryAfter = v
        }
        let count: Int?
        switch Self.count(body) {
        case .success(let c): count = c
        case .failure(let p): return p.response
        }
        setUnavailable(status: status, retryAfterSeconds: retryAfter, count: count)
        return HTTPResponse(status: 204)
    }

    func postDelay(_ request: HTTPRequest) -> HTTPResponse {
        let body: JSONObject
        switch Self.object(request.body) {
        case .success(let o): body = o
        case .failure(let p): return p.response
        }
        guard let ms = body["milliseconds"]?.intValue, (0...600_000).contains(ms) else {
            return Self.problem(422, "Unprocessable Content", "milliseconds must be a whole number from 0 to 600000")
        }
        setDelay(milliseconds: ms)
        return HTTPResponse(status: 204)
    }

    func controlsJSON(_ c: GatewayControls) -> JSON {
        let rejections = c.rejections.sorted { $0.key < $1.key }.map { token, r -> JSON in
            var pairs: [(String, JSON)] = [("token", .string(token)), ("status", .number(Double(r.status)))]
            if let reason = r.reason { pairs.append(("reason", .string(reason))) }
            if let n = r.remaining { pairs.append(("count", .number(Double(n)))) }
            return .object(pairs)
        }
        var outage: JSON = .null
        if let o = c.outage {
            var pairs: [(String, JSON)] = [("status", .number(Double(o.status)))]
            if let r = o.retryAfterSeconds { pairs.append(("retry_after", .number(Double(r)))) }
            if let n = o.remaining { pairs.append(("count", .number(Double(n)))) }
            outage = .object(pairs)
        }
        return .object([
            ("rejections", .array(rejections)), ("unavailable", outage),
            ("delay_milliseconds", .number(Double(c.delayMilliseconds))),
        ])
    }

    static func object(_ bytes: [UInt8]) -> Result<JSONObject, ProblemResponse> {
        do {
            guard let o = try JSON.parse(bytes).objectValue else {
                return .failure(ProblemResponse(problem(400, "Bad Request", "the body must be a JSON object")))
            }
            return .success(o)
        } catch {
            return .failure(ProblemResponse(problem(400, "Bad Request", "malformed JSON: \(error.description)")))
        }
    }

    static func count(_ body: JSONObject) -> Result<Int?, ProblemResponse> {
        guard let c = body["count"], !c.isNull else { return .success(nil) }
        guard let n = c.intValue, n >= 1 else {
            return .failure(
                ProblemResponse(problem(422, "Unprocessable Content", "count must be a whole number of at least 1"))
            )
        }
        return .success(n)
    }

    static func json(_ status: Int, _ value: JSON) -> HTTPResponse {
        var response = HTTPResponse(status: status, body: value.serialized())
        response.headers.add("content-type", "application/json")
        return response
    }

    /// The methods each control path answers, for 405's `Allow`.
    static let allowedMethods: [String: String] = [
        "/": "GET, HEAD", "/healthz": "GET", "/deliveries": "GET, DELETE", "/stats": "GET",
        "/control": "GET, DELETE", "/control/reject": "POST, DELETE", "/control/unavailable": "POST, DELETE",
        "/control/delay": "POST",
    ]

    static func problem(_ status: Int, _ title: String, _ detail: String) -> HTTPResponse {
        var response = HTTPResponse(
            status: status,
            body: JSON.object([
                ("title", .string(title)), ("status", .number(Double(status))), ("detail", .string(detail)),
            ]).serialized()
        )
        response.headers.add("content-type", "application/problem+json")
        return response
    }
}

/// An error answer carried through `Result` (HTTPResponse is not an Error).
struct ProblemResponse: Error {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}
