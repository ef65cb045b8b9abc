import Clock
import LerixSDK
import Synchronization

/// One emulated device: its configuration, clock, disk, network switch and the SDK instance
/// of its current (or last) process. Confined to the host's thread.
final class AdapterDevice {
    let id: String
    var configuration: LerixConfiguration
    let clock: VirtualDeviceClock
    let storage: any Storage
    let transport: DeviceTransport
    let log: @Sendable (String) -> Void
    /// The current process's SDK; after `terminate` the last one, kept for `state`.
    private(set) var sdk: Lerix
    private(set) var isRunning = false
    /// What earlier processes of this device sent (the counters span launches).
    private var earlier = LerixStatistics()
    /// The last failed check of earlier processes (the state shows the latest since `create`).
    private var earlierFailure: CheckFailure?

    init(
        id: String,
        configuration: LerixConfiguration,
        clock: VirtualDeviceClock,
        storage: any Storage,
        network: any AdapterNetwork,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.id = id
        self.configuration = configuration
        self.clock = clock
        self.storage = storage
        self.transport = DeviceTransport(network: network)
        self.log = log
        sdk = Self.makeSDK(configuration, clock, transport, storage, online: true, log: log)
    }

    var isOnline: Bool { transport.isOnline }

    /// App start: a fresh process (the previous one ends first) applies its saved answer, then checks.
    func launch() {
        terminate()
        retire()
        sdk = newProcess()
        isRunning = true
        sdk.start()
    }

    func terminate() {
        guard isRunning else { return }
        sdk.shutdown()
        isRunning = false
    }

    /// A new version replaces the app: a running one ends, the next `launch` starts the new one.
    func install(appVersion: String?, build: String?) {
        terminate()
        configuration.appVersion = appVersion
        configuration.build = build
        retire()
        sdk = newProcess()
    }

    func setOnline(_ online: Bool) {
        transport.setOnline(online)
        if isRunning { sdk.networkReachabilityChanged(isReachable: online) }
    }

    /// The SDK of a new process of this device, on its configuration as it is now.
    private func newProcess() -> Lerix {
        Self.makeSDK(configuration, clock, transport, storage, online: transport.isOnline, log: log)
    }

    private static func makeSDK(
        _ configuration: LerixConfiguration,
        _ clock: VirtualDeviceClock,
        _ transport: DeviceTransport,
        _ storage: any Storage,
        online: Bool,
        log: @escaping @Sendable (String) -> Void
    ) -> Lerix {
        Lerix(
            configuration: configuration,
            millisecondClock: clock,
            transport: transport,
            storage: storage,
            online: online,
            log: log
        )
    }

    /// Keeps what the ending process counted before a new one replaces it.
    private func retire() {
        earlier = Self.adding(earlier, sdk.statistics)
        earlierFailure = sdk.lastCheckFailure ?? earlierFailure
    }

    /// The latest failed check since `create`, across launches, given the current process's state.
    func lastCheckFailure(in state: LerixState) -> CheckFailure? { state.lastCheckFailure ?? earlierFailure }

    /// Counters since `create`, across launches.
    var statistics: LerixStatistics { Self.adding(earlier, sdk.statistics) }

    static func adding(_ a: LerixStatistics, _ b: LerixStatistics) -> LerixStatistics {
        var sum = a
        sum.checks += b.checks
        sum.notModified += b.notModified
        sum.failedChecks += b.failedChecks
        sum.tokenRegistrations += b.tokenRegistrations
        for (module, count) in b.sent { sum.sent[module, default: 0] += count }
        return sum
    }
}

/// The device's network: the host's shared client behind an on/off switch, so a device that
/// is offline fails at once (the SDK also knows, and does not try).
final class DeviceTransport: Transport {
    private let network: any AdapterNetwork
    /// An atomic, not a lock: read at every request, from a fleet's cold memory, a plain load
    /// lets the request go on while it arrives where a lock's exchange waited for it.
    private let online = Atomic(true)

    init(network: any AdapterNetwork) {
        self.network = network
    }

    var isOnline: Bool { online.load(ordering: .acquiring) }

    func setOnline(_ value: Bool) { online.store(value, ordering: .releasing) }

    func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        guard isOnline else {
            completion(.failure(TransportError("the device is offline")))
            return
        }
        network.send(request, completion: completion)
    }
}
