import Clock
import HTTP
import JSON
import ProviderAuth
import Synchronization

/// A stand-in for APNs and FCM: a ``Responder`` that checks push requests the way the
/// providers do, records what it accepts, and can be told to misbehave.
///
/// Host it with `HTTPServer` on any port (h2c and HTTP/1.1), or call `respond(to:reply:)`
/// directly. `lerix-mock push-gateway` is this type on a port.
///
/// Endpoints:
/// - `POST /3/device/<hex token>`: APNs (``APNsValidator``). 200 with `apns-id`, or APNs's
///   `{"reason": "…"}` (BadDeviceToken, MissingTopic, InvalidPushType, BadPriority,
///   PayloadEmpty, 413 PayloadTooLarge, 410 Unregistered, 503 ServiceUnavailable, …).
/// - `POST /v1/projects/<project>/messages:send`: FCM v1 (``FCMValidator``). 200
///   `{"name": "projects/<p>/messages/<n>"}`, or Google's `{"error": {"code", "message",
///   "status", "details": [{"@type": "…FcmError", "errorCode"}]}}`.
/// - `GET /deliveries[?token=&provider=apns|fcm&limit=N&after=SEQ]` → `{"deliveries": [...],
///   "total": N, "dropped": N, "next": link or null}`: one page (1000 by default, at most
///   10000), oldest first, each with its `seq`; the log keeps the most recent `maxRecordedDeliveries`.
///   `DELETE /deliveries` clears the log and the counters of `GET /stats`.
/// - `POST /control/reject {"token": "…", "status": 410, "reason"?: "…", "count"?: N}`: answer
///   that token's requests with that status in the provider's form (FCM 404 is `UNREGISTERED`).
///   `DELETE /control/reject` clears every token rejection.
/// - `POST /control/unavailable {"status"?: 503, "retry_after"?: S, "count"?: N}`: answer every
///   provider request with that status (429 or 5xx), with `Retry-After` when given, for N requests
///   or until `DELETE /control/unavailable`.
/// - `POST /control/delay {"milliseconds": N}`: answer provider requests N ms late (0 clears).
/// - `GET /control` shows the controls; `DELETE /control` clears them all.
/// - `GET /stats` → `{"requests", "accepted", "refused", "in_flight", "max_in_flight"}`.
/// - `GET /healthz` → 200; `GET /` → this list as text.
///
/// `/control…`, `/deliveries` and `/stats` answer only this machine's tools and tests, never a
/// page in a browser (``CrossSiteGuard``, as serve's admin API): `Host` an IP address, `localhost`
/// or an allowed name, no foreign `Origin` or `Sec-Fetch-Site`, and writes with a body in
/// `application/json` (else 403 or 415). A page could otherwise reject every token or start an
/// outage with a `no-cors` fetch, or read the delivered tokens after rebinding its name.
///
/// Provider authentication is checked when configured (``Authentication``): with the APNs
/// auth key's public half, APNs requests need a valid ES256 provider token (else 403
/// `MissingProviderToken`, `InvalidProviderToken` or `ExpiredProviderToken`); with a service
/// account, the gateway serves its OAuth token endpoint at the `token_uri` path and FCM sends need
/// one of the access tokens it issued (else 401 `UNAUTHENTICATED`).
///
/// ```swift
/// let gateway = PushGateway(scheduler: SystemScheduler())
/// gateway.setDeliveryHandler { delivery in devices[delivery.token]?.wake() }
/// gateway.reject(token: "ab12…", status: 410)
/// let server = try HTTPServer(host: "127.0.0.1", port: 0, responder: gateway)
/// ```
public final class PushGateway: Responder, Sendable {
    struct State: Sendable {
        var controls = GatewayControls()
        var log: DeliveryLog
        var requests = 0
        var accepted = 0
        var refused = 0
        var inFlight = 0
        var maxInFlight = 0
        var nextMessage: UInt64 = 1
        var handler: (@Sendable (GatewayDelivery) -> Void)?
        var fcmTokens: FCMTokenIssuer?
    }

    /// What the stand-in checks of provider authentication; nothing by default.
    public struct Authentication: Sendable {
        public var apns: APNsTokenCheck?
        public var fcm: FCMTokenIssuer?
        public init(apns: APNsTokenCheck? = nil, fcm: FCMTokenIssuer? = nil) {
            self.apns = apns
            self.fcm = fcm
        }
    }

    let scheduler: any Scheduler
    let state: Mutex<State>
    let apnsTokenCheck: APNsTokenCheck?
    /// The path of the OAuth token endpoint (FCM auth only).
    let tokenPath: String?
    /// Keeps pages in a browser away from the controls and the log (as serve's admin API).
    let crossSite: CrossSiteGuard

    /// - Parameters:
    ///   - scheduler: the time deliveries are stamped with, and the clock delayed answers wait on.
    ///   - maxRecordedDeliveries: how many of the latest deliveries `GET /deliveries` keeps.
    ///   - maxRecordedBytes: how much memory they may take together (the oldest go first).
    ///   - authentication: provider auth to check (none by default).
    ///   - allowedHosts: host names `/control`, `/deliveries` and `/stats` answer to besides IP
    ///     addresses and `localhost` (`push-gateway --allow-host`; ``CrossSiteGuard``).
    public init(
        scheduler: any Scheduler,
        maxRecordedDeliveries: Int = 200_000,
        maxRecordedBytes: Int = 64 << 20,
        authentication: Authentication = Authentication(),
        allowedHosts: [String] = []
    ) {
        self.scheduler = scheduler
        self.crossSite = CrossSiteGuard(surface: "the gateway's controls and log", allowedHosts: allowedHosts)
        self.apnsTokenCheck = authentication.apns
        self.tokenPath = authentication.fcm?.account.tokenPath
        self.state = Mutex(
            State(
                log: DeliveryLog(capacity: maxRecordedDeliveries, maxBytes: maxRecordedBytes),
                fcmTokens: authentication.fcm
            )
        )
    }

    // MARK: In-process API (the same controls as the HTTP endpoints)

    /// Called once per accepted delivery, on the thread that handled the request, outside any lock.
    public func setDeliveryHandler(_ handler: (@Sendable (GatewayDelivery) -> Void)?) {
        state.withLock { $0.handler = handler }
    }

    public func reject(token: String, status: Int, reason: String? = nil, count: Int? = nil) {
        state.withLock { $0.controls.reject(token: token, status: status, reason: reason, count: count) }
    }

    public func setUnavailable(status: Int = 503, retryAfterSeconds: Int? = nil, count: Int? = nil) {
        state.withLock { $0.controls.setOutage(status: status, retryAfterSeconds: retryAfterSeconds, count: count) }
    }

    public func setDelay(milliseconds: Int) {
        state.withLock { $0.controls.delayMilliseconds = max(0, milliseconds) }
    }

    public func resetControls() { state.withLock { $0.controls.reset() } }

    public var controls: GatewayControls { state.withLock { $0.controls } }

    /// Accepted deliveries still in the log, oldest first.
    public var deliveries: [GatewayDelivery] { state.withLock { $0.log.all } }

    /// Deliveries accepted since the last clear (including those the log no longer holds).
    public var deliveredCount: Int { state.withLock { $0.log.total } }

    /// The most provider requests ever being answered at once (a delayed one counts until answered).
    public var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    public func clearDeliveries() {
        state.withLock {
            $0.log.clear()
            $0.requests = 0
            $0.accepted = 0
            $0.refused = 0
            $0.maxInFlight = $0.inFlight
        }
    }

    // MARK: Responder

    public func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        let target = request.target
        if let tokenPath, request.path == tokenPath {
            let now = scheduler.now
            reply(.response(state.withLock { $0.fcmTokens?.answer(request, now: now) } ?? HTTPResponse(status: 404)))
            return
        }
        let provider: PushProvider? =
            RequestTarget.hasPathPrefix(target, "/3/")
            ? .apns
            : RequestTarget.hasPathPrefix(target, "/v1/") ? .fcm : nil
        guard let provider else {
            reply(.response(control(request, path: request.path)))
            return
        }
        // One lock to count the request in and, when it is answered at once, to take an armed
        // outage's turn (the next thing the answer does): each lock is paid per pushed token.
        let (delay, outage) = state.withLock { s -> (Int, GatewayControls.Outage?) in
            s.requests += 1
            s.inFlight += 1
            s.maxInFlight = max(s.maxInFlight, s.inFlight)
            let delay = s.controls.delayMilliseconds
            return (delay, delay > 0 ? nil : s.controls.takeOutage())
        }
        if delay > 0 {
            scheduler.schedule(at: scheduler.now.adding(milliseconds: Int64(delay))) { [self] in
                let outage = state.withLock { $0.controls.takeOutage() }
                reply(.response(answer(request, provider: provider, outage: outage)))
            }
        } else {
            reply(.response(answer(request, provider: provider, outage: outage)))
        }
    }

    /// Fields an accepted push's answer ends with: its own one, and the server's
    /// Cache-Control and Date, added on the way out (reserved at once, not grown three times).
    static let answerFields = 4

    /// The provider's answer to one push request (`outage`: the armed outage's turn this request
    /// took, if any); records it when accepted. The request stops counting as in flight in the
    /// lock that settles it, before its answer is handed back.
    func answer(_ request: HTTPRequest, provider: PushProvider, outage: GatewayControls.Outage?) -> HTTPResponse {
        if let outage {
            var response =
                provider == .apns
                ? APNsError(status: outage.status, reason: APNsError.defaultReason(status: outage.status)).response()
                : FCMError.forStatus(outage.status).response()
            if let after = outage.retryAfterSeconds { response.headers.add("retry-after", String(after)) }
            refuseOne()
            return response
        }
        let now = scheduler.now
        if let refusal = authenticationRefusal(request, provider: provider, now: now) {
            refuseOne()
            return refusal
        }
        let delivery: GatewayDelivery
        let apnsID: String?
        switch provider {
        case .apns:
            switch APNsValidator.validate(request) {
            case .failure(let error):
                refuseOne()
                return error.response(apnsID: request.headers["apns-id"])
            case .success(let push):
                apnsID = push.apnsID
                delivery = GatewayDelivery(
                    provider: .apns,
                    token: push.token,
                    at: now,
                    topic: push.topic,
                    priority: Self.priorityText(push.priority),
                    body: request.body
                )
            }
        case .fcm:
            switch FCMValidator.validate(request) {
            case .failure(let error):
                refuseOne()
                return error.response()
            case .success(let push):
                apnsID = nil
                delivery = GatewayDelivery(
                    provider: .fcm,
                    token: push.token,
                    at: now,
                    project: push.project,
                    priority: push.androidPriority,
                    body: request.body
                )
            }
        }
        let (rejection, handler, message) = state.withLock {
            s -> (GatewayControls.Rejection?, (@Sendable (GatewayDelivery) -> Void)?, UInt64) in
            s.inFlight -= 1
            if let r = s.controls.takeRejection(for: delivery.token) {
                s.refused += 1
                return (r, nil, 0)
            }
            s.accepted += 1
            s.log.append(delivery)
            let n = s.nextMessage
            s.nextMessage += 1
            return (nil, s.handler, n)
        }
        if let rejection {
            switch provider {
            case .apns:
                return APNsError(
                    status: rejection.status,
                    reason: rejection.reason ?? APNsError.defaultReason(status: rejection.status)
                )
                .response(timestampMilliseconds: now.millisecondsSinceEpoch, apnsID: apnsID)
            case .fcm:
                return FCMError.forStatus(rejection.status, message: rejection.reason).response()
            }
        }
        handler?(delivery)
        switch provider {
        case .apns:
            var response = HTTPResponse(status: 200)
            response.headers.reserveCapacity(Self.answerFields)
            response.headers.add("apns-id", apnsID ?? Self.uuid(message))
            return response
        case .fcm:
            var response = HTTPResponse(
                status: 200,
                body: Self.messageName(project: delivery.project ?? "", message: message)
            )
            response.headers.reserveCapacity(Self.answerFields)
            response.headers.add("content-type", "application/json; charset=UTF-8")
            return response
        }
    }

    /// Counts a refused request out of flight.
    private func refuseOne() {
        state.withLock {
            $0.refused += 1
            $0.inFlight -= 1
        }
    }

    /// The provider's answer to a request whose authentication fails, nil when it passes (or is not checked).
    func authenticationRefusal(_ request: HTTPRequest, provider: PushProvider, now: Instant) -> HTTPResponse? {
        switch provider {
        case .apns:
            guard let apnsTokenCheck,
                let reason = apnsTokenCheck.problem(authorization: request.headers["authorization"], now: now)
            else { return nil }
            return APNsError(status: 403, reason: reason).response(apnsID: request.headers["apns-id"])
        case .fcm:
            let authorized = state.withLock { s -> Bool? in
                s.fcmTokens.map { $0.isAuthorized(request.headers["authorization"], now: now) }
            }
            guard authorized == false else { return nil }
            return FCMError.unauthenticated.response()
        }
    }

    /// A UUID-shaped id from a counter: unique per gateway, cheap, and stable in tests.
    static func uuid(_ n: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { out in
            // 32 hex digits of `n`, zero-padded, with dashes after digits 8, 12, 16 and 20. The
            // first 16 digits are the high half of a 128-bit number whose low half is `n`: zeros.
            for i in 0..<19 { out[i] = i == 8 || i == 13 || i == 18 ? UInt8(ascii: "-") : UInt8(ascii: "0") }
            out[23] = UInt8(ascii: "-")
            var v = n
            // Right to left; computed, not read from a static table (an initialization check per access).
            for i in stride(from: 35, through: 19, by: -1) where i != 23 {
                let digit = UInt8(truncatingIfNeeded: v & 15)
                out[i] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") - 10 + digit
                v >>= 4
            }
            return 36
        }
    }

    /// `apns-priority` as recorded: the header's value for the three APNs takes, without formatting.
    static func priorityText(_ priority: Int) -> String {
        switch priority {
        case 5: return "5"
        case 10: return "10"
        case 1: return "1"
        default: return String(priority)
        }
    }

    /// FCM's answer body: `{"name":"projects/<project>/messages/<n>"}`.
    static func messageName(project: String, message: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + project.utf8.count)
        out.append(contentsOf: #"{"name":"projects/"#.utf8)
        var project = project
        project.withUTF8 { bytes in
            if bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) {
                out.append(contentsOf: bytes)  // nothing to escape (every project name we make)
            } else {
                var quoted: [UInt8] = []
                JSON.writeString(String(decoding: bytes, as: UTF8.self), into: &quoted)
                out.append(contentsOf: quoted[1..<quoted.count - 1])
            }
        }
        out.append(contentsOf: "/messages/".utf8)
        var digits = 0
        var rest = message
        repeat {
            digits += 1
            rest /= 10
        } while rest > 0
        let start = out.count
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        rest = message
        for i in stride(from: start + digits - 1, through: start, by: -1) {
            out[i] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        out.append(contentsOf: #""}"#.utf8)
        return out
    }
}
