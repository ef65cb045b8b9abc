import Adapter
import AdminClient
import Clock
import Dispatch
import Foundation
import HTTP
import HTTPServer
import JSON
import LerixSDK
import MockServer
import Synchronization

/// The real mock server in this process, for a Swift test: typed admin calls, apps made on the
/// mock's one virtual clock, and silent pushes delivered to them, with no socket and no sleep.
///
/// ```swift
/// let mock = try LerixMock()
/// let app = mock.makeApp(platform: .ios, appVersion: "2.3.0")
/// try mock.create(RequiredUpdateRule(below: "2.4.0"))
/// #expect(await app.start().screen == .requiredUpdate)
/// try await mock.advance(by: .days(7))        // server and app move together, no sleep
/// ```
///
/// Every call returns once the work it caused is done: checks answered, pushes delivered to the
/// apps that own their tokens (and the checks those pushes caused). Each mock is its own server,
/// so tests run in parallel. ``listen()`` also serves it on a loopback port, for an app on
/// `URLSessionTransport` or any HTTP client.
public final class LerixMock: Sendable {
    /// True time: the server's manual clock and every app's timers.
    let clock: ManualScheduler
    /// The project admin calls go to.
    public let project: String
    /// The base URL the apps made here use (no socket behind it).
    public let baseURL: URL
    let server: MockServer
    let transport: ResponderTransport
    let pushQueue: PushQueue
    private let listener = Mutex<(server: HTTPServer, port: Int)?>(nil)

    /// The instant a mock starts at unless told: 2026-12-02T09:00:00Z, so runs repeat
    /// (``ServerClock/virtualStart``, where the scenario runner's in-process server starts too).
    public static let defaultStart = ServerClock.virtualStart.date

    /// A fresh server at `start` with one project, `demo` unless `project` says otherwise.
    public init(
        start: Date = LerixMock.defaultStart,
        project: String = StateSnapshot.defaultProjectKey
    )
        throws(MockProblem)
    {
        guard StateSnapshot.isValidProjectKey(project) else {
            throw MockProblem(
                status: 422,
                title: "Invalid project key",
                detail: "\"\(project)\" is not a project key: \(StateSnapshot.projectKeyRule)"
            )
        }
        let key = project
        clock = ManualScheduler(now: Instant(start))
        self.project = key
        pushQueue = PushQueue()
        var options = MockServerOptions(clock: .manual(clock))
        options.seed = StateSnapshot(projects: [
            .init(key: key, apnsTopic: "dev.lerix.\(key)", fcmProject: "lerix-\(key)")
        ])
        options.pushSink = pushQueue
        // The name in-process requests carry (`.test` never resolves, so no page can rebind to it).
        options.allowedHosts = MockServerOptions.inProcessHosts
        do {
            server = try MockServer(options: options)
        } catch {
            throw MockProblem(status: 500, title: "The mock server did not start", detail: "\(error)")
        }
        let base = "http://lerix.test"
        transport = ResponderTransport(responder: server, baseURL: base)
        baseURL = URL(string: base) ?? URL(fileURLWithPath: "/")  // a literal: always the former
    }

    // MARK: Apps

    /// An app on this mock: its checks reach the server in process, its timers sit on the mock's clock,
    /// and a push to `pushToken` reaches it. Nothing is sent until you call `start()`.
    public func makeApp(
        platform: Platform,
        appVersion: String? = "1.0.0",
        build: String? = nil,
        flavor: Flavor = .native,
        sdkName: String? = "swift",
        sdkVersion: String? = LerixConfiguration.currentSDKVersion,
        pushToken: String? = nil,
        enabled: Bool = true,
        storage: any Storage = InMemoryStorage(),
        clockOffset: Duration = .zero
    ) -> Lerix {
        let configuration = LerixConfiguration(
            baseURL: baseURL,
            project: project,
            platform: platform,
            flavor: flavor,
            appVersion: appVersion,
            build: build,
            sdkName: sdkName,
            sdkVersion: sdkVersion,
            enabled: enabled,
            pushToken: pushToken
        )
        let deviceClock = VirtualDeviceClock(scheduler: clock, offsetMilliseconds: clockOffset.milliseconds)
        let app = Lerix(configuration: configuration, clock: deviceClock, transport: transport, storage: storage)
        pushQueue.add(app, token: pushToken)
        return app
    }

    // MARK: Time

    /// The server's time now (true time; an app's clock may be off by its `clockOffset`).
    public var now: Date { clock.now.date }

    /// Moves true time forward: server timers (a throttled push) and every app's timers fire
    /// in order, each push reaching its apps at its instant.
    public func advance(by duration: Duration) async throws(MockProblem) {
        try await advance(to: clock.now.adding(milliseconds: duration.milliseconds).date)
    }

    /// Moves true time forward to `date` (never back: a ``MockProblem`` says so).
    public func advance(to date: Date) async throws(MockProblem) {
        let target = Instant(date)
        guard target >= clock.now else {
            throw MockProblem(
                status: 422,
                title: "Time only goes forward",
                detail: "\(target.rfc3339) is before the mock's \(clock.now.rfc3339)"
            )
        }
        pushQueue.duringACall {
            clock.advance(to: target) { _, due in
                for work in due { work.run() }
                deliverPushes()
            }
            deliverPushes()
        }
    }

    /// Hands each queued push to the apps that own its tokens; their checks run at once.
    func deliverPushes() { pushQueue.handOn() }

    // MARK: Serving on a port

    /// Serves the mock on a free loopback port too (for `URLSessionTransport` or curl); the URL.
    /// A change made over the port pushes to this mock's apps as soon as the server sends it
    /// (on a queue of the mock's: watch `app.stateUpdates` for what it did).
    public func listen() throws -> URL {
        try listener.withLock { current in
            if let current { return Self.loopbackURL(port: current.port) }
            let http = HTTPServer(
                configuration: .init(host: "127.0.0.1", port: 0, clock: clock),
                responder: server,
                log: nil
            )
            let port = try http.start()
            current = (http, port)
            return Self.loopbackURL(port: port)
        }
    }

    static func loopbackURL(port: Int) -> URL {
        var parts = URLComponents()
        parts.scheme = "http"
        parts.host = "127.0.0.1"
        parts.port = port
        return parts.url ?? URL(fileURLWithPath: "/")  // scheme, host and port always make a URL
    }

    /// Stops serving the port, if ``listen()`` started one.
    public func shutdown() {
        guard
            let http = listener.withLock({ current -> HTTPServer? in
                defer { current = nil }
                return current?.server
            })
        else { return }
        let stopped = DispatchSemaphore(value: 0)
        http.stop(graceful: false) { stopped.signal() }
        _ = stopped.wait(timeout: .now() + 5)
    }

    deinit { shutdown() }

    // MARK: Admin calls

    /// Any call on the server, as curl would make it (`call("GET", "/admin/state")`): the
    /// answer's body, or the server's problem+json as a ``MockProblem``. The typed calls are
    /// made of this.
    @discardableResult
    public func call(_ method: String, _ path: String, body: Data? = nil) throws(MockProblem) -> Data {
        Data(try respond(method, path, body.map { [UInt8]($0) }).body)
    }

    /// One call through the apps' own in-process transport, so through the server's routes (its
    /// validation, its problems), then the pushes it caused delivered.
    func respond(_ method: String, _ path: String, _ body: [UInt8]?) throws(MockProblem) -> TransportResponse {
        let request = TransportRequest(
            method: method,
            url: transport.baseURL + path,
            headers: body == nil ? [] : [("Content-Type", "application/json")],
            body: body ?? []
        )
        let answer = Mutex<TransportResult?>(nil)
        pushQueue.duringACall {
            transport.send(request) { result in answer.withLock { $0 = result } }
            deliverPushes()
        }
        switch answer.withLock({ $0 }) {
        case .success(let response) where (200..<300).contains(response.status):
            return response
        case .success(let response):
            throw MockProblem(
                status: response.status,
                problem: response.body.isEmpty ? nil : try? JSON.parse(response.body)
            )
        case .failure(let error):
            throw MockProblem(status: 500, title: "No answer", detail: "\(method) \(path): \(error)")
        case nil:
            throw MockProblem(status: 500, title: "No answer", detail: "\(method) \(path) gave no response")
        }
    }

    /// A typed admin call (AdminClient's, as the scenario runner sends them): its answer as the
    /// call reads it.
    @discardableResult
    func admin<Answer>(_ call: AdminCall<Answer>) throws(MockProblem) -> Answer {
        try answer(of: call, respond(call.method, call.path, call.body?.serialized()))
    }

    /// A call whose body is a rule's text as the rule wrote it (a RawRule's goes unparsed, for
    /// the server to judge).
    @discardableResult
    func admin<Answer>(_ call: AdminCall<Answer>, sending rule: some MockRule) throws(MockProblem) -> Answer {
        try answer(of: call, respond(call.method, call.path, [UInt8](rule.jsonBody)))
    }

    private func answer<Answer>(
        of call: AdminCall<Answer>,
        _ response: TransportResponse
    ) throws(MockProblem)
        -> Answer
    {
        let json = response.body.isEmpty ? JSON.null : (try? JSON.parse(response.body)) ?? .null
        do {
            return try call.answer(from: json)
        } catch {
            throw MockProblem(status: 500, title: "Unexpected answer", detail: "\(call.description): \(error.message)")
        }
    }
}

/// Apps are held weakly: a test's app that is gone gets no pushes.
struct WeakApp: @unchecked Sendable {
    weak var app: Lerix?
    let token: String?
}

/// The mock's push sink and its apps: each push's tokens wait here until the mock hands them
/// to the apps that own them, outside the server's call (an app's check must not run inside the
/// server's push).
///
/// A push made while no mock call runs (a change sent to the ``LerixMock/listen()`` port) has
/// nobody to hand it on at the end of a call: it is handed on from a queue of its own.
final class PushQueue: PushSink {
    private let queue = Mutex<[Set<String>]>([])
    private let calls = Mutex(0)
    private let apps = Mutex<[WeakApp]>([])
    private let handOff = DispatchQueue(label: "lerix-mock.pushes")

    func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        queue.withLock { $0.append(Set(push.tokens.map(\.token))) }
        completion(
            push.tokens.enumerated().map {
                TokenDelivery(token: $0.element.token, result: .delivered, position: $0.offset)
            }
        )
        if calls.withLock({ $0 == 0 }) { handOff.async { [weak self] in self?.handOn() } }
    }

    /// Runs `work` as a mock call: pushes it causes wait for the call to hand them on.
    func duringACall<T, E: Error>(_ work: () throws(E) -> T) throws(E) -> T {
        calls.withLock { $0 += 1 }
        defer { calls.withLock { $0 -= 1 } }
        return try work()
    }

    /// `app` gets the pushes to `token` while it lives.
    func add(_ app: Lerix, token: String?) {
        apps.withLock {
            $0.removeAll { $0.app == nil }
            $0.append(WeakApp(app: app, token: token))
        }
    }

    /// Hands each queued push to the apps that own its tokens.
    func handOn() {
        while let tokens = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            let owners = apps.withLock { list in
                list.compactMap { entry in entry.token.map(tokens.contains) == true ? entry.app : nil }
            }
            for app in owners { app.didReceiveSilentPush() }
        }
    }
}
