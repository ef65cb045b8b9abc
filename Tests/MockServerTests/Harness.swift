import Clock
import Dispatch
import HTTP
import JSON
import ReleaseControl
import Synchronization

@testable import MockServer

/// Drives a ``MockServer`` directly with request values on a manual clock: no sockets.
final class Harness: Sendable {
    static let start = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    let clock: ManualScheduler
    let server: MockServer
    let store: MemoryStateStore

    init(
        seed: StateSnapshot = .defaultSeed,
        adminToken: String? = nil,
        store: MemoryStateStore = MemoryStateStore(),
        sink: any PushSink = NoGatewayPushSink(),
        journalCapacity: Int = 1000,
        manual: Bool = true
    ) throws {
        clock = ManualScheduler(now: Self.start)
        self.store = store
        let options = MockServerOptions(
            seed: seed,
            clock: manual ? .manual(clock) : .system(clock),
            adminToken: adminToken,
            store: store,
            pushSink: sink,
            journalCapacity: journalCapacity
        )
        server = try MockServer(options: options)
    }

    /// Sends one request and waits for its reply (at most 10 s, a guard only).
    func send(_ method: String, _ target: String, body: String? = nil, headers: [(String, String)] = []) -> HTTPReply? {
        let request = Self.request(method, target, body: body, headers: headers)
        let box = Mutex<HTTPReply?>(nil)
        let done = DispatchSemaphore(value: 0)
        server.respond(to: request) { reply in
            box.withLock { $0 = reply }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else { return nil }
        return box.withLock { $0 }
    }

    /// The request ``send(_:_:body:headers:)`` sends.
    static func request(
        _ method: String,
        _ target: String,
        body: String? = nil,
        headers: [(String, String)] = []
    ) -> HTTPRequest {
        var fields = HTTPHeaders(headers)
        // As every client of the admin API must (admin writes take JSON only).
        if body != nil && !fields.contains("Content-Type") { fields.add("Content-Type", "application/json") }
        return HTTPRequest(method: method, target: target, headers: fields, body: body.map { Array($0.utf8) } ?? [])
    }

    /// Sends and expects a response (not a closed connection).
    func call(_ method: String, _ target: String, body: String? = nil, headers: [(String, String)] = []) -> Response {
        guard case .response(let response)? = send(method, target, body: body, headers: headers) else {
            return Response(HTTPResponse(status: -1))
        }
        return Response(response)
    }

    func get(_ target: String, headers: [(String, String)] = []) -> Response { call("GET", target, headers: headers) }
    func post(_ target: String, _ body: String) -> Response { call("POST", target, body: body) }
    func put(_ target: String, _ body: String) -> Response { call("PUT", target, body: body) }
    func delete(_ target: String) -> Response { call("DELETE", target) }

    func check(_ query: String, project: String = "demo", ifNoneMatch: String? = nil) -> Response {
        get(
            "/v1/projects/\(project)/release-control?\(query)",
            headers: ifNoneMatch.map { [("If-None-Match", $0)] } ?? []
        )
    }

    func advance(seconds: Int64) { clock.advance(bySeconds: seconds) }

    /// The first page of a listed push's per-token results (from its `results_url`).
    func results(_ push: JSON?) -> [JSON]? {
        guard let url = push?["results_url"]?.stringValue else { return nil }
        return get(url)["results"]?.arrayValue
    }

    /// `now + seconds` as the contract writes times.
    func time(_ seconds: Int64) -> String { clock.now.adding(seconds: seconds).rfc3339 }
}

/// A response with its body parsed when it is JSON.
struct Response {
    let raw: HTTPResponse
    let json: JSON?

    init(_ raw: HTTPResponse) {
        self.raw = raw
        json = try? JSON.parse(raw.body)
    }

    var status: Int { raw.status }
    var text: String { String(decoding: raw.body, as: UTF8.self) }
    func header(_ name: String) -> String? { raw.headers[name] }
    subscript(_ key: String) -> JSON? { json?[key] }

    /// The first problem pointer, for 400/422 answers.
    var firstPointer: String? { json?["errors"]?.arrayValue?.first?["pointer"]?.stringValue }
}

/// Records pushes and answers with chosen results.
final class RecordingSink: PushSink {
    let pushes = Mutex<[OutgoingPush]>([])
    let unregister: Set<String>

    init(unregister: Set<String> = []) { self.unregister = unregister }

    func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        pushes.withLock { $0.append(push) }
        completion(
            push.tokens.map {
                TokenDelivery(
                    token: $0.token,
                    result: unregister.contains($0.token) ? .unregistered(reason: "410 Unregistered") : .delivered
                )
            }
        )
    }
}

/// Keeps completions to call later, as a gateway sink answering asynchronously does.
final class DeferredSink: PushSink {
    let pending = Mutex<[(OutgoingPush, @Sendable ([TokenDelivery]) -> Void)]>([])

    func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        pending.withLock { $0.append((push, completion)) }
    }

    /// Completes every kept push with `result` for each token, in batches of `batch` tokens.
    func completeAll(_ result: DeliveryResult, batch: Int = 1) {
        let items = pending.withLock { p in
            defer { p.removeAll() }
            return p
        }
        for (push, completion) in items {
            var i = 0
            while i < push.tokens.count {
                let slice = push.tokens[i..<min(i + batch, push.tokens.count)]
                completion(slice.map { TokenDelivery(token: $0.token, result: result) })
                i += batch
            }
        }
    }
}
