import Clock
import Foundation
import JSON
import LerixSDK
import Synchronization

/// A release control server in a closure: answers checks from a settable answer with ETags and
/// 304s, accepts ingest and push tokens, and counts everything, on the test's manual clock.
final class FakeServer: Sendable {
    struct Contents {
        var requiredUpdate: JSON = .null
        var optionalUpdate: JSON = .null
        var maintenance: JSON = []
        var sdkSwitch: JSON = []
        var lifetime: JSON = 300
        var rawBody: [UInt8]?
        var status = 200
        var serverSkewSeconds: Int64 = 0
        var ingest: [String: Int] = [:]
        var tokens: [String] = []
        var checks = 0
    }

    /// The server's clock is the true clock; devices may be offset from it.
    let trueNow: @Sendable () -> Instant
    let contents = Mutex(Contents())

    init(trueNow: @escaping @Sendable () -> Instant) {
        self.trueNow = trueNow
    }

    func update(_ change: (inout Contents) -> Void) { contents.withLock { change(&$0) } }
    var ingest: [String: Int] { contents.withLock { $0.ingest } }
    var checks: Int { contents.withLock { $0.checks } }

    func answer(_ request: TransportRequest) -> TransportResult {
        let serverNow = trueNow()
        return contents.withLock { c -> TransportResult in
            if request.url.contains("/ingest/") {
                let module = String(request.url.split(separator: "/").last ?? "")
                let count = (try? JSON.parse(request.body))?.arrayValue?.count ?? 0
                c.ingest[module, default: 0] += count
                return .success(TransportResponse(status: 202))
            }
            if request.url.contains("/push-tokens/") {
                c.tokens.append(String(request.url.split(separator: "/").last ?? ""))
                return .success(TransportResponse(status: 204))
            }
            c.checks += 1
            let time = serverNow.adding(seconds: c.serverSkewSeconds).rfc3339
            if c.status != 200 { return .success(TransportResponse(status: c.status)) }
            if let raw = c.rawBody { return .success(TransportResponse(status: 200, body: raw)) }
            let state = JSON.object([
                ("required_update", c.requiredUpdate), ("optional_update", c.optionalUpdate),
                ("maintenance", c.maintenance), ("sdk_switch", c.sdkSwitch),
            ])
            let etag = "W/\"\(FakeServer.hash(state.serialized()))\""
            let lifetime = c.lifetime.intValue ?? 300
            let headers = [
                ("ETag", etag), ("Cache-Control", "private, max-age=\(lifetime)"), ("Lerix-Server-Time", time),
            ]
            if request.header("If-None-Match") == etag {
                return .success(TransportResponse(status: 304, headers: headers))
            }
            var body = JSONObject([("project", "demo"), ("server_time", .string(time)), ("lifetime", c.lifetime)])
            for (k, v) in state.objectValue ?? JSONObject() { body[k] = v }
            return .success(TransportResponse(status: 200, headers: headers, body: JSON.object(body).serialized()))
        }
    }

    static func hash(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return String(h, radix: 16)
    }
}

/// One test's world: true time, a device clock (maybe wrong, maybe set by the user), a server,
/// a disk, a network. True time is the device's uptime from the start: it never jumps.
final class World: Sendable {
    static let start = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    let device: ManualDeviceClock
    let server: FakeServer
    let transport: InMemoryTransport
    let storage = InMemoryStorage()
    let online = Locked(true)

    init(deviceOffsetSeconds: Int64 = 0) {
        let device = ManualDeviceClock(now: World.start.adding(seconds: deviceOffsetSeconds).date)
        self.device = device
        let server = FakeServer(trueNow: { World.start.adding(milliseconds: device.uptime.milliseconds) })
        self.server = server
        let online = self.online
        transport = InMemoryTransport { request in
            online.withLock { $0 } ? server.answer(request) : .failure(TransportError("offline"))
        }
    }

    /// True time now.
    var trueNow: Instant { server.trueNow() }

    func config(
        platform: Platform = .ios,
        flavor: Flavor = .native,
        version: String? = "2.3.0",
        build: String? = "41",
        enabled: Bool = true,
        pushToken: String? = nil
    ) -> LerixConfiguration {
        LerixConfiguration(
            baseURL: URL(string: "http://lerix.test")!,
            project: "demo",
            platform: platform,
            flavor: flavor,
            appVersion: version,
            build: build,
            sdkName: "swift",
            sdkVersion: "1.4.0",
            enabled: enabled,
            pushToken: pushToken
        )
    }

    func sdk(_ configuration: LerixConfiguration? = nil) -> Lerix {
        Lerix(
            configuration: configuration ?? config(),
            clock: device,
            transport: transport,
            storage: storage,
            online: online.withLock { $0 }
        )
    }

    /// Moves true time (and the device clock with it), firing the device's due timers.
    func advance(seconds: Int64) {
        device.advance(by: .seconds(seconds))
    }

    func setOnline(_ value: Bool, _ sdk: Lerix) {
        online.withLock { $0 = value }
        sdk.networkReachabilityChanged(isReachable: value)
    }

    /// A server time `seconds` from true now, RFC 3339.
    func at(_ seconds: Int64) -> JSON { .string(trueNow.adding(seconds: seconds).rfc3339) }

    var checkRequests: [TransportRequest] { transport.requests.filter { $0.url.contains("/release-control") } }
}

extension JSON: ExpressibleByDictionaryLiteral {
    /// Test-only sugar: `["rule": "r", "below": "2.4.0"]` as a JSON object, keys in order.
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(elements) }
}

/// A value behind a lock that closures can share (a `Mutex` itself cannot be captured).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// A transport whose answers wait until the test releases them: a check stays in flight
/// while other events arrive, as it does on a real network.
final class HeldTransport: Transport {
    private let answer: @Sendable (TransportRequest) -> TransportResult
    private let held = Mutex<[(TransportRequest, @Sendable (TransportResult) -> Void)]>([])

    init(_ answer: @escaping @Sendable (TransportRequest) -> TransportResult) {
        self.answer = answer
    }

    func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        held.withLock { $0.append((request, completion)) }
    }

    /// Requests sent and not yet answered.
    var waiting: Int { held.withLock { $0.count } }

    /// Answers everything held so far (and what those answers send, until nothing is left).
    func releaseAll() {
        while true {
            let batch = held.withLock { list -> [(TransportRequest, @Sendable (TransportResult) -> Void)] in
                defer { list.removeAll() }
                return list
            }
            if batch.isEmpty { return }
            for (request, completion) in batch { completion(answer(request)) }
        }
    }
}

/// A transport that answers later on another thread, as URLSession does: the `async` events
/// must wait for those answers, not return when the request leaves.
final class LaterTransport: Transport {
    private let answer: @Sendable (TransportRequest) -> TransportResult

    init(_ answer: @escaping @Sendable (TransportRequest) -> TransportResult) {
        self.answer = answer
    }

    func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        let answer = self.answer
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { completion(answer(request)) }
    }
}
