import Dispatch
import HTTP
import Synchronization
import TestSupport

/// Routes for server tests: the shared ``TestRoutes`` plus `/delay/<ms>` → "delayed <ms>" after
/// ms (from another queue); `/big` → a 2,700-byte JSON body; `/doc` → a reusable document;
/// `/close` → drop the connection. Records every target that arrives.
final class TestResponder: Responder {
    let received = Mutex<[String]>([])
    /// Signalled each time a request arrives (tests wait on it instead of sleeping).
    let arrivals = DispatchSemaphore(value: 0)

    private let routes = TestRoutes([
        "delay": { _, segments, reply in
            let ms = TestRoutes.number(segments, default: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms)) {
                reply(.response(HTTPResponse(status: 200, body: Array("delayed \(ms)".utf8))))
            }
        },
        "big": { _, _, reply in
            reply(
                .response(
                    HTTPResponse(
                        status: 200,
                        headers: ["Content-Type": "application/json"],
                        body: Array(String(repeating: "{\"k\": 1}", count: 300).utf8)
                    )
                )
            )
        },
        "doc": { _, _, reply in
            reply(
                .response(
                    HTTPResponse(
                        status: 200,
                        headers: ["Content-Type": "text/plain", "Cache-Control": "max-age=60"],
                        body: Array(String(repeating: "a reusable document\n", count: 40).utf8)
                    )
                )
            )
        },
        "close": { _, _, reply in reply(.close) },
    ])

    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        received.withLock { $0.append(request.target) }
        arrivals.signal()
        routes.respond(to: request, reply: reply)
    }
}
