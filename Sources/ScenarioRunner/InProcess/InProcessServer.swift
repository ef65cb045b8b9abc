import Clock
import HTTPServer
import JSON
import MockServer
import Push
import ReleaseControl
import Synchronization

/// A MockServer on a manual clock, in this process, whose silent pushes the runner drains and
/// hands to the devices owning their tokens.
///
/// With `viaGateway`, pushes take the real path: ``GatewayPushSink`` speaks APNs and FCM over
/// h2c to the push-gateway stand-in (``PushGateway``) on a loopback port, and only the tokens
/// the gateway accepted reach devices. Without it, a direct tap accepts every token (no sockets).
///
/// ```swift
/// let server = try InProcessServer(start: Instant(rfc3339: "2026-12-02T09:00:00.000Z")!)
/// try server.connection.request("POST", "/admin/clock", body: ["advance_seconds": 60])
/// server.drain()    // pushes sent meanwhile
/// ```
public final class InProcessServer: PushTap, @unchecked Sendable {
    public let clock: ManualScheduler
    public let server: MockServer
    public let connection: ResponderServerConnection
    private let tap: TapGateway?
    private let settling: SettlingPushSink?
    /// The push-gateway stand-in and its listener, with `viaGateway`.
    public let pushGateway: PushGateway?
    private let gatewayServer: HTTPServer?
    private let gatewaySink: GatewayPushSink?

    public init(start: Instant, baseURL: String = "http://lerix.test", viaGateway: Bool = false) throws {
        clock = ManualScheduler(now: start)
        var options = MockServerOptions(clock: .manual(clock))
        options.seed = StateSnapshot(projects: [.init(key: "demo", apnsTopic: "dev.lerix.demo", fcmProject: "lerix-demo")])
        options.journalCapacity = 200_000
        if viaGateway {
            let gateway = PushGateway(scheduler: clock)
            let listener = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, clock: clock), responder: gateway)
            let port = try listener.start()
            let url = "http://127.0.0.1:\(port)"
            let sink = try GatewayPushSink(configuration: try .init(apnsGateway: url, fcmGateway: url))
            let settling = SettlingPushSink(inner: sink, clock: clock)
            options.pushSink = settling
            pushGateway = gateway
            gatewayServer = listener
            gatewaySink = sink
            self.settling = settling
            tap = nil
        } else {
            let tap = TapGateway(clock: clock)
            options.pushSink = tap
            self.tap = tap
            settling = nil
            pushGateway = nil
            gatewayServer = nil
            gatewaySink = nil
        }
        server = try MockServer(options: options)
        connection = ResponderServerConnection(responder: server, baseURL: baseURL)
    }

    public func drain() throws -> [ObservedPush] {
        if let tap { return tap.drain() }
        guard let settling else { return [] }
        let pushes = settling.drain()
        let stuck = settling.unsettled
        if stuck > 0 {
            throw ServerFailure("the push gateway has not reported every token's result for \(stuck) push(es) after 60 s of real time")
        }
        return pushes
    }

    /// Closes the gateway path's connections and listener.
    public func shutdown() {
        gatewaySink?.shutdown()
        gatewayServer?.stop(graceful: false)
    }

    /// The server's next timer (a throttled push), for the runner's stops.
    public var nextDeadline: Instant? { clock.nextDeadline }
}

/// Accepts every push at once (each token `delivered`) and keeps it for the runner.
final class TapGateway: PushSink {
    private let clock: ManualScheduler
    private let pending = Mutex<[ObservedPush]>([])

    init(clock: ManualScheduler) { self.clock = clock }

    func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        let observed = ObservedPush(id: push.id, sentAt: clock.now, tokens: push.tokens.map(\.token))
        pending.withLock { $0.append(observed) }
        completion(push.tokens.map { TokenDelivery(token: $0.token, result: .delivered) })
    }

    func drain() -> [ObservedPush] {
        pending.withLock { list in
            defer { list = [] }
            return list
        }
    }
}
