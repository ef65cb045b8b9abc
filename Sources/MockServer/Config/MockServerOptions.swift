import Clock
import ReleaseControl

/// Which clock the mock runs on. Only a manual clock can be moved by `POST /admin/clock`.
///
/// ```swift
/// let clock = ServerClock.manual(ManualScheduler(now: Instant(rfc3339: "2026-12-02T11:00:00.000Z")!))
/// ```
public enum ServerClock: Sendable {
    case system(any Scheduler)
    case manual(ManualScheduler)

    public var scheduler: any Scheduler {
        switch self {
        case .system(let scheduler): return scheduler
        case .manual(let scheduler): return scheduler
        }
    }

    public var isManual: Bool {
        if case .manual = self { return true }
        return false
    }

    /// Where an in-process mock starts its manual clock unless told (``MockDefaults/virtualStart``).
    public static let virtualStart = MockDefaults.virtualStart
}

/// Everything `lerix-mock serve` decides before the mock answers its first request.
///
/// ```swift
/// var options = MockServerOptions()
/// options.seed = try ConfigFile.load(path: "seed.json")
/// options.clock = .manual(ManualScheduler(now: start))
/// options.adminToken = "s3cret"
/// let server = try MockServer(options: options)
/// ```
public struct MockServerOptions: Sendable {
    /// The state to start from (without a stored state) and to go back to on `POST /admin/reset`.
    public var seed: StateSnapshot
    public var clock: ServerClock
    /// When set, `/admin/…` needs `Authorization: Bearer <token>`.
    public var adminToken: String?
    /// Host names the admin API answers to besides IP literals and `localhost`
    /// (`serve --allow-host`): a name that can be rebound to this machine must not reach it.
    public var allowedHosts: [String] = []
    /// `lerix.test`, the host in-process callers (LerixMock, the scenario runner) put in their
    /// requests: `.test` is reserved (RFC 2606) and never resolves, so no page can rebind it.
    public static let inProcessHosts = ["lerix.test"]
    /// Durable storage; the default keeps everything in memory.
    public var store: any StateStore
    /// Where silent pushes go; the default records every token as `no_gateway`.
    public var pushSink: any PushSink
    /// Diagnostics for people (a push sink that fails, a store that refuses); one line each.
    public var log: @Sendable (String) -> Void
    /// How many checks `GET /admin/requests` remembers.
    public var journalCapacity: Int
    /// Device classes cached per project before the cache is dropped and rebuilt (memory bound).
    public var cacheCapacity: Int
    /// Set when every `respond(to:reply:)` is followed, on the same thread, by `batchEnded()`
    /// (HTTPServer's loops do this for a responder that asks): a request's writes then commit at
    /// the batch's end, sharing one commit, on the loop that answers them. Off, each write starts
    /// its commit at once (callers that hand over one request at a time).
    public var commitsAtBatchEnd = false
    /// When set, each `GET /admin/events` stream ends after this long in wall time
    /// (`serve --events-max-seconds`): EventSource reconnects after the stream's `retry`, and a
    /// reader that wants a whole response (a contract tester, `curl` in a script) gets one.
    public var eventStreamLifetime: Duration?
    /// Called with the scenario when a recording stops (`serve --record FILE` writes it there).
    public var recordingStopped: (@Sendable (String) -> Void)?

    public init(
        seed: StateSnapshot = .defaultSeed,
        clock: ServerClock = .system(SystemScheduler()),
        adminToken: String? = nil,
        store: any StateStore = MemoryStateStore(keepsEvents: false),
        pushSink: any PushSink = NoGatewayPushSink(),
        log: @escaping @Sendable (String) -> Void = { _ in },
        journalCapacity: Int = 1000,
        cacheCapacity: Int = 10_000
    ) {
        self.seed = seed
        self.clock = clock
        self.adminToken = adminToken
        self.store = store
        self.pushSink = pushSink
        self.log = log
        self.journalCapacity = journalCapacity
        self.cacheCapacity = cacheCapacity
    }
}
