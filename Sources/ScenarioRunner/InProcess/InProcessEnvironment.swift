import Clock
import JSON

/// The default world: a fresh in-process MockServer on a manual clock and a fresh in-process
/// Swift SDK host per scenario, joined without sockets, so runs are fast and deterministic.
///
/// `viaGateway` sends pushes through the push-gateway stand-in over h2c (see ``InProcessServer``).
public final class InProcessEnvironment: ScenarioEnvironment {
    let viaGateway: Bool

    public init(viaGateway: Bool = true) {
        self.viaGateway = viaGateway
    }

    public func hello() throws -> JSON {
        let adapter = try InProcessAdapter.make()
        defer { adapter.close() }
        return try adapter.command("hello")
    }

    public func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
        let server = try InProcessServer(start: Environments.inProcessStart, viaGateway: viaGateway)
        let adapter = try InProcessAdapter.make(responder: server.server, clock: server.clock)
        let storage = StorageFolder.make()
        return ScenarioWorld(server: server.connection, adapter: adapter, pushTap: server,
                             serverNextDeadline: { server.nextDeadline }, serverTimeFollowsAdapter: true,
                             rejectToken: server.pushGateway.map { gateway in { token, status in gateway.reject(token: token, status: status) } },
                             storageRoot: storage) {
            adapter.close()
            server.shutdown()
            StorageFolder.remove(storage)
        }
    }
}
