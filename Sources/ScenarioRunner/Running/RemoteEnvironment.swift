import AdapterProtocol
import AdminClient
import Clock
import Foundation
import JSON
import ScenarioLanguage
import Synchronization

/// Scenarios against a running server (`--server URL`, started with `--clock manual`) and a
/// spawned adapter (`--adapter "CMD"`), one fresh adapter process per scenario. The runner
/// hosts the push-gateway stand-in on a loopback port and points the server's pushes at it
/// for the run (`PUT /admin/push-gateways`; the old gateways come back at the end).
///
/// Every world is that one server: setup resets it and puts its manual clock back to the
/// scenario's start (`POST /admin/reset {"now": …}`), so scenarios run one at a time, in any order.
///
/// ```swift
/// let env = try RemoteEnvironment(serverURL: "http://127.0.0.1:8080", adapterCommand: "node adapter.js")
/// ```
public final class RemoteEnvironment: ScenarioEnvironment {
    let server: HTTPServerConnection
    let makeAdapter: () throws -> any AdapterConnection
    let storageBase: String
    let gateway: PushGatewayStandIn

    public init(
        serverURL: String,
        adminToken: String? = nil,
        adapter: @escaping () throws -> any AdapterConnection
    ) throws {
        server = try HTTPServerConnection(url: serverURL, adminToken: adminToken)
        makeAdapter = adapter
        let clock = try server.admin(Admin.clockAnswer)
        if let mode = clock["mode"]?.stringValue, mode != "manual" {
            throw ServerFailure(
                "\(serverURL) runs on the system clock; start it with `lerix-mock serve --clock manual` so scenarios can move time"
            )
        }
        gateway = try PushGatewayStandIn.listen(scheduler: SystemScheduler(), sender: .anotherProcess)
        do {
            try gateway.point(server)
        } catch {
            gateway.shutdown()
            throw error
        }
        storageBase = StorageFolder.make()
    }

    public convenience init(
        serverURL: String,
        adminToken: String? = nil,
        adapterCommand: String,
        adapterOptions: SubprocessAdapter.Options = .init()
    ) throws {
        try self.init(serverURL: serverURL, adminToken: adminToken) {
            try SubprocessAdapter(command: adapterCommand, options: adapterOptions)
        }
    }

    deinit {
        gateway.restore(server)
        gateway.shutdown()
        StorageFolder.remove(storageBase)
    }

    public func hello() throws -> JSON {
        let adapter = try makeAdapter()
        defer { adapter.close() }
        return try adapter.command(.hello(protocolVersion: AdapterProtocolVersion.current))
    }

    public func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
        let adapter = try makeAdapter()
        let storage = storageBase + "/" + StorageFolder.slug(scenario.name)
        gateway.clear()
        return ScenarioWorld(server: server, adapter: adapter, gateway: gateway, storageRoot: storage) { [gateway] in
            adapter.close()
            gateway.clear()
            StorageFolder.remove(storage)
        }
    }
}

/// Device storage lives in a temporary folder per run, removed afterwards.
enum StorageFolder {
    /// Under /dev/shm when the machine has it (memory, not disk: a 1,000-device fleet writes
    /// thousands of small files), else the temporary directory.
    static func make() -> String {
        let fm = FileManager.default
        let root = fm.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : fm.temporaryDirectory.path
        let base = root + "/lerix-scenarios-\(ProcessInfo.processInfo.processIdentifier)-\(counter.next())"
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        return base
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    static func slug(_ name: String) -> String {
        String(name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(60))
    }

    private static let counter = Counter()
}

final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}
