import Dispatch
import HTTP
import Synchronization
import TestSupport

/// Routes for client tests against the real server: the shared ``TestRoutes`` plus `/stream` →
/// three pieces as a chunked stream; `/status/<code>` → that status, no body; `/etag` → 304 when
/// If-None-Match is "v1", else 200 with ETag "v1"; `/gate/<n>` → held until n gate requests have
/// arrived, then all answered in reverse order (only a pipelining client gets them on one
/// connection); `/silent` → never answered.
final class ClientTestResponder: Responder {
    private let gate = Gate()
    private let routes: TestRoutes

    init() {
        let gate = self.gate
        routes = TestRoutes([
            "stream": { _, _, reply in
                let stream = ResponseStream()
                reply(.stream(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"]), stream))
                DispatchQueue.global().async {
                    for piece in ["one ", "two ", "three"] { _ = stream.write(Array(piece.utf8)) }
                    stream.finish()
                }
            },
            "status": { _, segments, reply in
                reply(.response(HTTPResponse(status: TestRoutes.number(segments, default: 500))))
            },
            "etag": { request, _, reply in
                if request.headers["If-None-Match"] == "\"v1\"" {
                    reply(.response(HTTPResponse(status: 304, headers: ["ETag": "\"v1\""])))
                } else {
                    reply(
                        .response(HTTPResponse(status: 200, headers: ["ETag": "\"v1\""], body: Array("versioned".utf8)))
                    )
                }
            },
            "gate": { request, segments, reply in
                gate.hold(request.target, reply, until: TestRoutes.number(segments, default: 1))
            },
            "silent": { _, _, _ in },
        ])
    }

    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        routes.respond(to: request, reply: reply)
    }

    /// Requests held until enough have arrived, then answered newest first.
    private final class Gate: Sendable {
        private let held = Mutex<[(String, @Sendable (HTTPReply) -> Void)]>([])

        func hold(_ target: String, _ reply: @escaping @Sendable (HTTPReply) -> Void, until needed: Int) {
            let open: [(String, @Sendable (HTTPReply) -> Void)]? = held.withLock { held in
                held.append((target, reply))
                guard held.count >= needed else { return nil }
                defer { held = [] }
                return held
            }
            for (target, reply) in (open ?? []).reversed() {
                reply(.response(HTTPResponse(status: 200, body: Array("gate \(target)".utf8))))
            }
        }
    }
}
