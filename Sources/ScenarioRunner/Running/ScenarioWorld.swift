import AdminClient
import Clock
import JSON
import MockServer
import ScenarioLanguage

/// Everything one scenario runs against: a server in a known state, a fresh adapter with no
/// devices, and the push-gateway stand-in the server's pushes go to. In process and against a
/// running server the world has the same parts; only how each is reached differs.
public struct ScenarioWorld {
    public var server: any ServerConnection
    public var adapter: any AdapterConnection
    /// Where the server's pushes arrive; what it accepts reaches the devices owning the tokens.
    public var gateway: PushGatewayStandIn
    /// True when the server's manual clock is the adapter's own scheduler (one clock in process):
    /// then the adapter's `advance` moves the server too, and the runner sends no clock move.
    public var serverTimeFollowsAdapter: Bool
    /// How long of wall time the runner waits for the server's pushes in flight to settle (every
    /// token has its gateway's answer) before it reports the server stuck; nil: as long as it
    /// takes. Nil when the server and the gateway stand-in are both in this process (in process;
    /// the runner's own loopback server): each push there settles, since the stand-in answers
    /// every request and the server's push client keeps no wall-clock limit towards it, so a
    /// limit could only turn a busy machine into a wrong verdict. A running server (`--server`)
    /// is another process that may never settle: 60 s, then a clear error.
    public var pushWaitLimit: Duration?
    /// A folder for the devices' storage; removed by `close`.
    public var storageRoot: String
    public var close: () -> Void

    public init(
        server: any ServerConnection,
        adapter: any AdapterConnection,
        gateway: PushGatewayStandIn,
        serverTimeFollowsAdapter: Bool = false,
        pushWaitLimit: Duration? = .seconds(60),
        storageRoot: String,
        close: @escaping () -> Void
    ) {
        self.server = server
        self.adapter = adapter
        self.gateway = gateway
        self.serverTimeFollowsAdapter = serverTimeFollowsAdapter
        self.pushWaitLimit = pushWaitLimit
        self.storageRoot = storageRoot
        self.close = close
    }
}

/// Where a scenario's worlds come from: the in-process server and Swift SDK, a running server,
/// a spawned adapter, or an in-memory fake in tests.
public protocol ScenarioEnvironment: AnyObject {
    /// The adapter's `hello` answer: `name`, `version`, `capabilities`.
    func hello() throws -> JSON
    /// A fresh world for one scenario (``SuiteRunner/isolatedRun(of:in:)``): setup then resets
    /// its server to the scenario's time 0, so nothing a scenario before it did shows.
    func makeWorld(for scenario: Scenario) throws -> ScenarioWorld
    /// True when each world has a server of its own (in process; `--adapter` with the runner's
    /// own server), so worlds share nothing and may be open side by side; false when every world
    /// is the one server reset per scenario (`--server URL`), so only one may be open at a time.
    var worldsAreIndependent: Bool { get }
}

extension ScenarioEnvironment {
    /// One world at a time unless an environment says its worlds share nothing.
    public var worldsAreIndependent: Bool { false }
}

extension ServerClockState {
    /// The clock state read from a server in this process (what `GET /admin/clock` would say).
    init(_ reading: MockServer.ClockReading) {
        self.init(now: reading.now, nextDeadline: reading.nextDeadline, pushesInFlight: reading.pushesInFlight)
    }
}
