import Adapter
import AdapterProtocol
import Clock
import JSON
import ScenarioLanguage

/// The default world: a fresh in-process MockServer on a manual clock and a fresh in-process
/// Swift SDK host per scenario, joined without sockets, so runs are fast and deterministic.
///
/// Pushes reach the devices through the runner's push-gateway stand-in, as against a running
/// server: with `viaGateway` over h2c on a loopback port (the server pointed at it by
/// `PUT /admin/push-gateways`), without it straight into the stand-in (no sockets at all).
public final class InProcessEnvironment: ScenarioEnvironment {
    /// The devices' HTTP client over the in-process server's network: the SDK's as it is, or one
    /// that behaves like another platform's (a test's client retrying a reset GET once, as OkHttp does).
    public typealias Client = @Sendable (any AdapterNetwork) -> any AdapterNetwork

    let viaGateway: Bool
    let client: Client?

    public init(viaGateway: Bool = true, client: Client? = nil) {
        self.viaGateway = viaGateway
        self.client = client
    }

    /// Each world is its own server, clock, gateway and adapter.
    public var worldsAreIndependent: Bool { true }

    public func hello() throws -> JSON {
        let adapter = try InProcessAdapter.make()
        defer { adapter.close() }
        return try adapter.command(.hello(protocolVersion: AdapterProtocolVersion.current))
    }

    public func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
        let start = Scenario.inProcessStart
        let gateway =
            viaGateway
            ? try PushGatewayStandIn.listen(scheduler: SystemScheduler(), sender: .thisProcess)
            : PushGatewayStandIn.inMemory(scheduler: SystemScheduler())
        let server: InProcessServer
        do {
            server = try InProcessServer(start: start, pushes: viaGateway ? .redirectable : .direct(gateway.gateway))
            try gateway.point(server.connection)
        } catch {
            gateway.shutdown()
            throw error
        }
        // One clock: the devices' timers sit on the server's manual clock, so the adapter's
        // `advance` moves the server too.
        let adapter = try InProcessAdapter.make(responder: server.server, clock: server.clock, client: client)
        let storage = StorageFolder.make()
        return ScenarioWorld(
            server: server.connection,
            adapter: adapter,
            gateway: gateway,
            serverTimeFollowsAdapter: true,
            pushWaitLimit: nil,
            storageRoot: storage
        ) {
            adapter.close()
            server.shutdown()
            gateway.shutdown()
            StorageFolder.remove(storage)
        }
    }
}
