import Clock
import JSON
import MockServer
import ReleaseControl
import Synchronization

/// A MockServer on a manual clock, in this process, whose silent pushes go to a tap the runner
/// drains: the in-process push gateway that hands each push to the devices owning its tokens.
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
    private let gateway: TapGateway

    public init(start: Instant, baseURL: String = "http://lerix.test") throws {
        clock = ManualScheduler(now: start)
        let gateway = TapGateway(clock: clock)
        self.gateway = gateway
        var options = MockServerOptions(clock: .manual(clock))
        options.pushSink = gateway
        options.journalCapacity = 200_000
        server = try MockServer(options: options)
        connection = ResponderServerConnection(responder: server, baseURL: baseURL)
    }

    public func drain() -> [ObservedPush] { gateway.drain() }

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
