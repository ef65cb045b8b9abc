import Dispatch
import HTTP
import Synchronization

/// Routes for server tests:
/// `/hello` → "hello"; `/echo` → the body; `/delay/<ms>` → "delayed <ms>" after ms
/// (from another queue); `/doc` → a reusable document; `/close` → drop the connection; anything else → "<METHOD> <target>".
final class TestResponder: Responder {
    let received = Mutex<[String]>([])
    /// Signalled each time a request arrives (tests wait on it instead of sleeping).
    let arrivals = DispatchSemaphore(value: 0)

    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        received.withLock { $0.append(request.target) }
        arrivals.signal()
        let segments = request.pathSegments
        switch segments.first {
        case "hello":
            reply(.response(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("hello".utf8))))
        case "echo":
            reply(.response(HTTPResponse(status: 200, body: request.body)))
        case "delay":
            let ms = segments.count > 1 ? Int(segments[1]) ?? 0 : 0
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms)) {
                reply(.response(HTTPResponse(status: 200, body: Array("delayed \(ms)".utf8))))
            }
        case "big":
            reply(.response(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"],
                                         body: Array(String(repeating: "{\"k\": 1}", count: 300).utf8))))
        case "bytes":
            let count = segments.count > 1 ? Int(segments[1]) ?? 0 : 0
            reply(.response(HTTPResponse(status: 200, body: (0 ..< count).map { UInt8(truncatingIfNeeded: $0 % 251) })))
        case "doc":
            reply(.response(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain", "Cache-Control": "max-age=60"],
                                         body: Array(String(repeating: "a reusable document\n", count: 40).utf8))))
        case "close":
            reply(.close)
        default:
            reply(.response(HTTPResponse(status: 200, body: Array("\(request.method) \(request.target)".utf8))))
        }
    }
}
