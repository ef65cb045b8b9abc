import Clock
import JSON

/// The default world: a fresh in-process MockServer on a manual clock and a fresh in-process
/// Swift SDK host per scenario, joined without sockets, so runs are fast and deterministic.
public final class InProcessEnvironment: ScenarioEnvironment {
    public init() {}

    public func hello() throws -> JSON {
        let adapter = try InProcessAdapter.make()
        defer { adapter.close() }
        return try adapter.command("hello")
    }

    public func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
        let server = try InProcessServer(start: Environments.inProcessStart)
        let adapter = try InProcessAdapter.make(responder: server.server)
        let storage = StorageFolder.make()
        return ScenarioWorld(server: server.connection, adapter: adapter, pushTap: server,
                             serverNextDeadline: { server.nextDeadline }, storageRoot: storage) {
            adapter.close()
            StorageFolder.remove(storage)
        }
    }
}
