import Dispatch
import HTTP
import Synchronization

/// Routes for client tests against the real server:
/// `/hello` → "hello"; `/echo` → the body; `/bytes/<n>` → n patterned bytes; `/stream` → three
/// pieces as a chunked stream; `/status/<code>` → that status, no body; `/etag` → 304 when
/// If-None-Match is "v1", else 200 with ETag "v1"; `/gate/<n>` → held until n gate requests have
/// arrived, then all answered in reverse order (only a pipelining client gets them on one
/// connection); `/silent` → never answered; anything else → "<METHOD> <target>".
final class ClientTestResponder: Responder {
    private let gate = Mutex<[(String, @Sendable (HTTPReply) -> Void)]>([])

    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        let segments = request.pathSegments
        switch segments.first {
        case "hello":
            reply(.response(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("hello".utf8))))
        case "echo":
            reply(.response(HTTPResponse(status: 200, body: request.body)))
        case "bytes":
            let count = segments.count > 1 ? Int(segments[1]) ?? 0 : 0
            reply(.response(HTTPResponse(status: 200, body: Self.pattern(count))))
        case "stream":
            let stream = ResponseStream()
            reply(.stream(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"]), stream))
            DispatchQueue.global().async {
                for piece in ["one ", "two ", "three"] { _ = stream.write(Array(piece.utf8)) }
                stream.finish()
            }
        case "status":
            reply(.response(HTTPResponse(status: segments.count > 1 ? Int(segments[1]) ?? 500 : 500)))
        case "etag":
            if request.headers["If-None-Match"] == "\"v1\"" {
                reply(.response(HTTPResponse(status: 304, headers: ["ETag": "\"v1\""])))
            } else {
                reply(.response(HTTPResponse(status: 200, headers: ["ETag": "\"v1\""], body: Array("versioned".utf8))))
            }
        case "gate":
            let needed = segments.count > 1 ? Int(segments[1]) ?? 1 : 1
            let target = request.target
            let open: [(String, @Sendable (HTTPReply) -> Void)]? = gate.withLock { held in
                held.append((target, reply))
                guard held.count >= needed else { return nil }
                defer { held = [] }
                return held
            }
            for (target, reply) in (open ?? []).reversed() {
                reply(.response(HTTPResponse(status: 200, body: Array("gate \(target)".utf8))))
            }
        case "silent":
            break
        default:
            reply(.response(HTTPResponse(status: 200, body: Array("\(request.method) \(request.target)".utf8))))
        }
    }

    static func pattern(_ count: Int) -> [UInt8] {
        (0 ..< count).map { UInt8(truncatingIfNeeded: $0 % 251) }
    }
}
