import AdminClient
import Clock
import Dispatch
import HTTPServer
import JSON
import Push
import Synchronization

/// The push-gateway stand-in the runner hosts for every scenario, in process and against a
/// running server alike: the server sends APNs and FCM requests to it, it refuses the tokens a
/// `gateway_reject` step names, and the deliveries it accepts are what reaches the devices.
///
/// On a loopback port (``listen(scheduler:)``) any server can reach it; ``inMemory(scheduler:)``
/// has no socket, for a server in this process that calls it straight (``ResponderPushSink``).
///
/// ```swift
/// let gateway = try PushGatewayStandIn.listen(scheduler: SystemScheduler())
/// try gateway.point(server)                 // PUT /admin/push-gateways → this gateway
/// gateway.reject(token: "tok-1", status: 410)
/// let accepted = gateway.drain()            // deliveries since the last drain
/// ```
public final class PushGatewayStandIn: Sendable {
    public let gateway: PushGateway
    /// `http://127.0.0.1:PORT` when it listens on a port.
    public let url: String?
    private let listener: HTTPServer?
    private let accepted = Mutex<[GatewayDelivery]>([])
    /// Signalled on each accepted delivery, so a wait for the server's pushes wakes at once.
    private let delivered = DispatchSemaphore(value: 0)
    /// What the server's gateways were before ``point(_:)``, restored by ``restore(_:)``.
    private let previous = Mutex<JSON?>(nil)

    private init(gateway: PushGateway, listener: HTTPServer?, url: String?) {
        self.gateway = gateway
        self.listener = listener
        self.url = url
        gateway.setDeliveryHandler { [weak self] delivery in self?.accept(delivery) }
    }

    private func accept(_ delivery: GatewayDelivery) {
        accepted.withLock { $0.append(delivery) }
        delivered.signal()
    }

    public static func inMemory(scheduler: any Scheduler) -> PushGatewayStandIn {
        PushGatewayStandIn(gateway: PushGateway(scheduler: scheduler), listener: nil, url: nil)
    }

    /// Where the server that pushes to the stand-in runs.
    public enum Sender: Sendable {
        /// In the runner's process (in process; the runner's own server for `--adapter`).
        case thisProcess
        /// In another process (`--server URL`).
        case anotherProcess
    }

    /// Listens on 127.0.0.1 on a port the kernel picks (h2c with prior knowledge).
    ///
    /// For a sender in this process the listener keeps no limits of wall time (a request head
    /// within 10 s of connecting, a connection idle 75 s): like the sender's own towards it
    /// (`InProcessServer.standInPushes`), they would only measure how late a busy machine ran
    /// the sender's threads, and each connection they closed cost a push an attempt.
    public static func listen(scheduler: any Scheduler, sender: Sender = .anotherProcess) throws -> PushGatewayStandIn {
        let gateway = PushGateway(scheduler: scheduler)
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, clock: scheduler)
        if case .thisProcess = sender {
            configuration.headerReadTimeout = Self.noLimit
            configuration.requestReadTimeout = Self.noLimit
            configuration.idleTimeout = Self.noLimit
        }
        let listener = HTTPServer(configuration: configuration, responder: gateway)
        let port = try listener.start()
        return PushGatewayStandIn(gateway: gateway, listener: listener, url: "http://127.0.0.1:\(port)")
    }

    /// A limit HTTPServer's deadlines never reach (it clamps it to some 146 years): none.
    static let noLimit = Duration.seconds(Int64.max)

    /// The listener's limits of wall time (nil: it has no socket).
    var listenerTimeouts: (headerRead: Duration, requestRead: Duration, idle: Duration)? {
        listener.map {
            ($0.configuration.headerReadTimeout, $0.configuration.requestReadTimeout, $0.configuration.idleTimeout)
        }
    }

    /// Points the server's APNs and FCM pushes at this gateway (`PUT /admin/push-gateways`),
    /// remembering where they went before.
    public func point(_ server: any ServerConnection) throws(ServerFailure) {
        guard let url else { return }
        let before = try Self.gateways(of: server)
        previous.withLock { $0 = before }
        try server.admin(Admin.setPushGateways(.object([("apns", .string(url)), ("fcm", .string(url))])))
    }

    /// Gives the server back the gateways it had before ``point(_:)`` (best effort: the run is over).
    public func restore(_ server: any ServerConnection) {
        guard let before = previous.withLock({ $0 }) else { return }
        _ = try? server.request(Admin.setPushGateways(before))
    }

    private static func gateways(of server: any ServerConnection) throws(ServerFailure) -> JSON {
        let reply = try server.request(Admin.pushGateways)
        guard reply.status == 200, let json = reply.json else {
            throw ServerFailure(
                "\(Admin.pushGateways.description) answered \(reply.status): this server cannot be pointed at the runner's push gateway (is it an older lerix-mock?); \(reply.json?["detail"]?.stringValue ?? "")"
            )
        }
        return json
    }

    /// The provider answers `status` to this token's pushes from now on (410: the app is gone).
    public func reject(token: String, status: Int) {
        gateway.reject(token: token, status: status)
    }

    /// Deliveries accepted since the last drain, oldest first.
    public func drain() -> [GatewayDelivery] {
        accepted.withLock { list in
            defer { list = [] }
            return list
        }
    }

    /// Waits at most `milliseconds` of real time for the next accepted delivery; once one came,
    /// goes on taking them until a millisecond passes without one. A caller that polls the
    /// server on each wake then polls once per burst of a fan-out, not once per token (75,000
    /// polls of the server's clock at 100k devices).
    func waitForDelivery(milliseconds: Int) {
        guard delivered.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return }
        while delivered.wait(timeout: .now() + .milliseconds(1)) == .success {}
    }

    /// Forgets one scenario's rejections and deliveries before the next.
    public func clear() {
        gateway.resetControls()
        gateway.clearDeliveries()
        _ = drain()
        while delivered.wait(timeout: .now()) == .success {}
    }

    public func shutdown() {
        listener?.stop(graceful: false)
    }
}
