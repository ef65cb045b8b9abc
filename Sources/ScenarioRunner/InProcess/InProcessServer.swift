import Clock
import HTTP
import JSON
import MockServer
import Push
import ReleaseControl

/// A MockServer on a manual clock, in this process, reached without sockets through
/// ``connection``; its pushes go to the runner's push-gateway stand-in.
///
/// How pushes leave it is the ``Pushes`` choice: `.redirectable` is the real path
/// (``GatewayPushSink`` speaking APNs and FCM over h2c to wherever `PUT /admin/push-gateways`
/// points it, as `serve` does); `.direct(gateway)` hands each request straight to a gateway
/// ``Responder`` (no sockets at all).
///
/// ```swift
/// let server = try InProcessServer(start: Instant(rfc3339: "2026-12-02T09:00:00.000Z")!, pushes: .redirectable)
/// try server.connection.request("POST", "/admin/clock", body: ["advance_seconds": 60])
/// ```
public final class InProcessServer: Sendable {
    public enum Pushes: Sendable {
        case redirectable
        case direct(any Responder)
    }

    public let clock: ManualScheduler
    public let server: MockServer
    public let connection: ResponderServerConnection
    private let gatewaySink: RedirectableGatewayPushSink?

    public init(start: Instant, baseURL: String = "http://lerix.test", pushes: Pushes) throws {
        clock = ManualScheduler(now: start)
        var options = MockServerOptions(clock: .manual(clock))
        let demo = StateSnapshot.defaultProjectKey
        options.seed = StateSnapshot(projects: [
            .init(key: demo, apnsTopic: "dev.lerix.\(demo)", fcmProject: "lerix-\(demo)")
        ])
        options.journalCapacity = 200_000
        // The name in-process requests carry (`.test` never resolves, so no page can rebind to it).
        options.allowedHosts = MockServerOptions.inProcessHosts
        switch pushes {
        case .redirectable:
            let sink = try RedirectableGatewayPushSink(configuration: Self.standInPushes)
            options.pushSink = sink
            gatewaySink = sink
        case .direct(let gateway):
            options.pushSink = ResponderPushSink(gateway: gateway, clock: clock)
            gatewaySink = nil
        }
        server = try MockServer(options: options)
        connection = ResponderServerConnection(responder: server, baseURL: baseURL)
    }

    /// How the server's pushes reach the runner's push-gateway stand-in, which lives in this
    /// process for as long as the world and answers every request: with no connect or request
    /// timeout. Its answers come whenever the machine schedules its threads (and the push
    /// client's, at background priority), and a limit of wall time turned a busy machine into
    /// failed pushes, devices that never checked, and a verdict that depended on scheduling.
    /// A refused or broken connection still fails as it would (retried, then `failed`).
    static var standInPushes: GatewayPushSink.Configuration {
        var configuration = GatewayPushSink.Configuration()
        configuration.connectTimeout = nil
        configuration.requestTimeout = nil
        return configuration
    }

    /// Closes the push path's connections.
    public func shutdown() {
        gatewaySink?.shutdown()
    }
}
