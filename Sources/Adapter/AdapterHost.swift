import AdapterProtocol
import Clock
import Foundation
import JSON
import LerixSDK
import Synchronization

/// Hosts many SDK devices in virtual time behind the adapter protocol (ADAPTER.md): one JSON
/// request in, one JSON answer out, and every request, timer and completion it started has
/// finished by the time the answer is returned.
///
/// ```swift
/// let host = AdapterHost()                                  // real sockets to the server
/// host.handleLine(#"{"id":1,"cmd":"create","device":"a","now":"2026-12-02T11:00:00.000Z","#
///     + #""config":{"base_url":"http://127.0.0.1:8080","project":"demo","platform":"ios","app_version":"2.3.0"}}"#)
/// host.handle(["id": 2, "cmd": "launch", "device": "a"])   // {"id":2,"ok":true}
/// host.deliverPush(token: "tok-1")                          // route a silent push by token
/// ```
///
/// Calls are serialised: one command runs at a time, on the caller's thread.
public final class AdapterHost: Sendable {
    public struct Options: Sendable {
        /// Called with the new true time before timers due then fire, and at the end of an
        /// `advance`: the in-process runner moves the server's manual clock here. It runs inside
        /// a command, so it must not call ``AdapterHost/handle(_:)``; ``AdapterHost/deliverPush(token:)``
        /// is fine (the push is handled at that instant, before the command returns).
        public var timeMoved: (@Sendable (Instant) -> Void)?
        /// When set, the host itself moves the server's manual clock (`POST {url}/admin/clock`)
        /// at every instant it fires timers, so one `advance` can span a simulated week.
        public var serverClockURL: String?
        public var adminToken: String?
        /// Where diagnostics go (the CLI passes stderr).
        public var log: @Sendable (String) -> Void = { _ in }
        /// Keeps each `config.storage` folder as an in-memory disk (one per folder path, for the
        /// host's life) instead of files: for in-process runs, whose folders are thrown away
        /// after the scenario, so a fleet's answers cost no file writes.
        public var disksInMemory = false
        /// The platforms to emulate (`--platforms android`): `hello` lists only these (and no
        /// `push` when the web is all), and `create` on another is refused, so one Swift host
        /// can stand in for an SDK of one platform. Nil: every platform.
        public var platforms: [String]?
        /// Real seconds after which the devices' network gives up a request (`--request-timeout`),
        /// told in `hello` as `request_timeout_seconds` so `adapter-check` can arm a delay past it.
        public var requestTimeoutSeconds: Double?
        public init() {}
    }

    public static let name = "lerix-swift-sdk"
    /// The Swift adapter emulates everything: every feature, platform and flavor.
    public static let capabilities = AdapterCapability.all

    /// What `hello` lists: everything, or only the platforms of ``Options/platforms`` (web pages
    /// have no silent push, so a web-only host lists no `push`).
    public static func capabilities(emulating platforms: [String]?) -> [AdapterCapability] {
        guard let platforms else { return capabilities }
        return capabilities.filter { capability in
            if capability.isPlatform { return platforms.contains(String(capability.rawValue.dropFirst(9))) }
            if capability == .push { return platforms.contains(where: AdapterVocabulary.pushPlatforms.contains) }
            return true
        }
    }

    let network: any AdapterNetwork
    let options: Options
    /// True time and every device's timers. Shared with the server in process; otherwise the
    /// host's own, starting before any time a command can name, so the first `create` sets it.
    let scheduler: ManualScheduler
    /// The devices, reachable only while a command holds the lock: one command at a time.
    private let serial: Mutex<DeviceTable>
    /// Pushes waiting for the host's thread (delivered from a callback or another thread).
    private let pushes = Mutex<[String]>([])

    /// - Parameter scheduler: true time to share (the in-process server's manual clock): the
    ///   host's `advance` then fires the server's timers and the devices' in one deadline order,
    ///   and a `create` cannot move time backwards. Without one the host keeps its own.
    public init(
        network: any AdapterNetwork = HTTPClientNetwork(),
        options: Options = Options(),
        scheduler: ManualScheduler? = nil
    ) {
        self.network = network
        self.options = options
        self.scheduler = scheduler ?? ManualScheduler(now: Self.beforeAnyTime)
        self.serial = Mutex(DeviceTable(timeKnown: scheduler != nil))
    }

    /// The earliest RFC 3339 time (0000-01-01T00:00:00Z): an own scheduler starts here.
    static let beforeAnyTime = Instant(millisecondsSinceEpoch: -62_167_219_200_000)

    /// True time now.
    public var now: Instant { scheduler.now }

    /// The SDK instance of `device` (its current or last process), for in-process callers.
    public func sdk(of device: String) -> Lerix? {
        serial.withLock { table in table.devices[device]?.sdk }
    }

    /// A silent push for `token`: every running device (foreground or background) with that push
    /// token checks at once. Safe from any thread and from ``Options/timeMoved``: a push that
    /// arrives while a command runs is handled before that command returns; otherwise it is
    /// handled, and its checks finished, before this returns.
    public func deliverPush(token: String) {
        pushes.withLock { $0.append(token) }
        // A command in progress (maybe our own caller) drains the queue itself.
        guard serial.withLockIfAvailable({ table in drainPushes(table) }) != nil else { return }
    }

    /// Hands queued pushes to their devices and waits for the checks they start.
    func drainPushes(_ table: DeviceTable) {
        while true {
            let tokens = pushes.withLock { queue -> [String] in
                let taken = queue
                queue.removeAll()
                return taken
            }
            if tokens.isEmpty { return }
            for token in tokens {
                for id in table.order {
                    guard let device = table.devices[id], device.configuration.pushToken == token, device.isRunning,
                        device.configuration.supportsPush
                    else { continue }
                    device.sdk.didReceiveSilentPush()
                }
            }
            network.runUntilIdle()
        }
    }

    /// One request line to one answer line (no trailing newline). Never throws, never traps.
    public func handleLine(_ line: String) -> String {
        let request: JSON
        do {
            request = try JSON.parse(line)
        } catch {
            return Self.failure(id: .null, "the line is not JSON: \(error)").serializedString
        }
        return handle(request).serializedString
    }

    /// One request object to one answer object.
    public func handle(_ request: JSON) -> JSON {
        guard let object = request.objectValue else {
            return Self.failure(id: .null, "a request must be a JSON object, not \(request.typeName)")
        }
        let id = object["id"] ?? .null
        guard object["id"] != nil else { return Self.failure(id: .null, "missing field id") }
        let typed: AdapterRequest
        do {
            typed = try AdapterRequest(decoding: object)
        } catch {
            return Self.failure(id: id, error)
        }
        switch handle(typed) {
        case .success(let fields):
            var answer = JSONObject([("id", id), ("ok", true)])
            for (key, value) in fields { answer[key] = value }
            return .object(answer)
        case .failure(let error):
            return Self.failure(id: id, error)
        }
    }

    /// One typed request to the answer's fields besides `id` and `ok` (or the refusal): what
    /// ``handle(_:)-(JSON)`` does once the line is read, for an in-process caller that has the
    /// request typed already, so nothing is encoded or decoded per device.
    public func handle(_ request: AdapterRequest) -> Result<[(String, JSON)], AdapterCommandError> {
        locked { table throws(CommandError) in try run(request, table) }
    }

    /// Runs one command's `body` holding the lock, then waits for what it started (requests,
    /// pushes) whether it succeeded or was refused.
    func locked<Answer: Sendable>(
        _ body: (DeviceTable) throws(CommandError) -> Answer
    ) -> Result<Answer, AdapterCommandError> {
        serial.withLock { table in
            let answer: Result<Answer, CommandError>
            do throws(CommandError) {
                answer = .success(try body(table))
            } catch {
                answer = .failure(error)
            }
            network.runUntilIdle()
            drainPushes(table)
            return answer
        }
    }

    static func failure(id: JSON, _ message: String) -> JSON {
        .object([("id", id), ("ok", false), ("error", .string(message))])
    }

    /// `ok: false` with the error, and `pointer` when it names a field of the request.
    static func failure(id: JSON, _ error: AdapterCommandError) -> JSON {
        var answer: [(String, JSON)] = [("id", id), ("ok", false), ("error", .string(error.message))]
        if let pointer = error.pointer { answer.append(("pointer", .string(pointer))) }
        return .object(answer)
    }
}

/// Refusals are the protocol's one error type.
typealias CommandError = AdapterCommandError

/// The host's devices in creation order, and whether the first `create` has set true time.
/// Only ever reached through the host's lock, so it needs no lock of its own.
final class DeviceTable {
    var timeKnown: Bool
    var devices: [String: AdapterDevice] = [:]
    var order: [String] = []
    /// The in-memory disks by folder, with ``AdapterHost/Options/disksInMemory``.
    var disks: [String: InMemoryStorage] = [:]
    /// Each `base_url` text a `create` accepted, read: a fleet names one server 100,000 times.
    var baseURLs: [String: URL] = [:]

    init(timeKnown: Bool) { self.timeKnown = timeKnown }
}
