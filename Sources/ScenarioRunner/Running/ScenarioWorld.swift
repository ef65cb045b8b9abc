import Clock
import JSON

/// Everything one scenario runs against: a server in a known state, a fresh adapter with no
/// devices, and (in process) a direct line to the server's pushes and timers.
public struct ScenarioWorld {
    public var server: any ServerConnection
    public var adapter: any AdapterConnection
    /// Pushes handed straight over by an in-process server; nil: the runner reads `GET …/pushes`.
    public var pushTap: (any PushTap)?
    /// The server's next timer (a throttled push) when in process; nil: the runner assumes one
    /// 60 s after each push, as the contract's throttle does.
    public var serverNextDeadline: (() -> Instant?)?
    /// The server keeps its time on the adapter's scheduler (in process: one heap), so the
    /// adapter's `advance` moves both and the runner does not set the server's clock then.
    public var serverTimeFollowsAdapter: Bool
    /// Tells the push-gateway stand-in to refuse a token with a provider status (410: the app
    /// is gone); nil when pushes do not go through an in-process gateway.
    public var rejectToken: ((_ token: String, _ status: Int) -> Void)?
    /// A folder for the devices' storage; removed by `close`.
    public var storageRoot: String
    public var close: () -> Void

    public init(server: any ServerConnection, adapter: any AdapterConnection, pushTap: (any PushTap)? = nil,
                serverNextDeadline: (() -> Instant?)? = nil, serverTimeFollowsAdapter: Bool = false,
                rejectToken: ((String, Int) -> Void)? = nil, storageRoot: String, close: @escaping () -> Void) {
        self.serverTimeFollowsAdapter = serverTimeFollowsAdapter
        self.rejectToken = rejectToken
        self.server = server
        self.adapter = adapter
        self.pushTap = pushTap
        self.serverNextDeadline = serverNextDeadline
        self.storageRoot = storageRoot
        self.close = close
    }
}

/// Where a scenario's worlds come from: the in-process server and Swift SDK, a running server,
/// a spawned adapter, or an in-memory fake in tests.
public protocol ScenarioEnvironment: AnyObject {
    /// The adapter's `hello` answer: `name`, `version`, `capabilities`.
    func hello() throws -> JSON
    func makeWorld(for scenario: Scenario) throws -> ScenarioWorld
}

/// A silent push as it left the server: which tokens it went to, and when.
public struct ObservedPush: Sendable, Equatable {
    public var id: Int
    public var sentAt: Instant
    /// Tokens the push reached (a token the provider refused is left out).
    public var tokens: [String]
    public init(id: Int, sentAt: Instant, tokens: [String]) {
        self.id = id
        self.sentAt = sentAt
        self.tokens = tokens
    }
}

/// Pushes the server sent since the last `drain`, oldest first.
public protocol PushTap: AnyObject {
    func drain() throws -> [ObservedPush]
}
