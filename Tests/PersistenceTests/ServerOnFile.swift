import Clock
import Dispatch
import HTTP
import JSON
import MockServer
import Synchronization

@testable import Persistence

/// A ``MockServer`` on a manual clock over an ``SQLiteStateStore``, driven with request values.
final class ServerOnFile {
    static let start = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    let store: SQLiteStateStore
    let server: MockServer
    let clock: ManualScheduler

    /// `commitsAtBatchEnd`: as `serve --state` runs it, writes commit when the caller (standing
    /// in for a server loop) calls `server.batchEnded()`.
    init(
        path: String,
        seed: StateSnapshot = .defaultSeed,
        now: Instant = ServerOnFile.start,
        durability: StateDurability = .default,
        commitsAtBatchEnd: Bool = false,
        pushSink: any PushSink = NoGatewayPushSink()
    ) throws {
        store = try SQLiteStateStore.open(path: path, seed: seed, durability: durability)
        clock = ManualScheduler(now: now)
        var options = MockServerOptions(seed: store.seed, clock: .manual(clock), store: store)
        options.seed = store.seed
        options.commitsAtBatchEnd = commitsAtBatchEnd
        options.pushSink = pushSink
        server = try MockServer(options: options)
    }

    func close() { store.close() }

    /// Sends one request; status and parsed JSON body (nil when not JSON).
    @discardableResult
    func call(_ method: String, _ target: String, _ body: String? = nil) -> (status: Int, json: JSON?, text: String) {
        let request = HTTPRequest(
            method: method,
            target: target,
            headers: body == nil ? HTTPHeaders() : HTTPHeaders([("Content-Type", "application/json")]),
            body: body.map { Array($0.utf8) } ?? []
        )
        let box = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        server.respond(to: request) { reply in
            if case .response(let response) = reply { box.withLock { $0 = response } }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success, let response = box.withLock({ $0 }) else {
            return (-1, nil, "")
        }
        return (response.status, try? JSON.parse(response.body), String(decoding: response.body, as: UTF8.self))
    }

    /// `GET /admin/state`, the export of everything.
    var exported: JSON? { call("GET", "/admin/state").json }

    func time(_ seconds: Int64) -> String { clock.now.adding(seconds: seconds).rfc3339 }
}
