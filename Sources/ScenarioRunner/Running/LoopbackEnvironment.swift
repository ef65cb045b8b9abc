import AdapterProtocol
import Clock
import JSON
import ScenarioLanguage

/// A spawned adapter against servers of the runner's own (`--adapter CMD` without `--server`):
/// every world is a fresh in-process MockServer on its own manual clock, served on a free
/// loopback port, with its own push-gateway stand-in, adapter process and storage folder. Worlds
/// share nothing, so a scenario sees nothing of the ones before it and worlds may run side by side.
///
/// ```swift
/// let env = LoopbackEnvironment(adapterCommand: "node SDKs/web/adapter.js")
/// let world = try env.makeWorld(for: scenario)    // its own server, gateway and adapter
/// defer { world.close() }                         // all stopped
/// ```
public final class LoopbackEnvironment: ScenarioEnvironment {
    let makeAdapter: @Sendable () throws -> any AdapterConnection

    public init(adapter: @escaping @Sendable () throws -> any AdapterConnection) {
        makeAdapter = adapter
    }

    public convenience init(adapterCommand: String, adapterOptions: SubprocessAdapter.Options = .init()) {
        self.init { try SubprocessAdapter(command: adapterCommand, options: adapterOptions) }
    }

    public var worldsAreIndependent: Bool { true }

    public func hello() throws -> JSON {
        let adapter = try makeAdapter()
        defer { adapter.close() }
        return try adapter.command(.hello(protocolVersion: AdapterProtocolVersion.current))
    }

    public func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
        let local = try LoopbackServer.start()
        var gateway: PushGatewayStandIn?
        var adapter: (any AdapterConnection)?
        do {
            let server = local.connection
            let stand = try PushGatewayStandIn.listen(scheduler: SystemScheduler(), sender: .thisProcess)
            gateway = stand
            try stand.point(server)
            let spawned = try makeAdapter()
            adapter = spawned
            let storage = StorageFolder.make()
            // Server and stand-in are both in this process: each push settles, however busy the machine.
            return ScenarioWorld(
                server: server,
                adapter: spawned,
                gateway: stand,
                pushWaitLimit: nil,
                storageRoot: storage
            ) {
                spawned.close()
                stand.shutdown()
                local.shutdown()
                StorageFolder.remove(storage)
            }
        } catch {
            adapter?.close()
            gateway?.shutdown()
            local.shutdown()
            throw error
        }
    }
}
