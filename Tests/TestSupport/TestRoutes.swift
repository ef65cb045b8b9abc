import HTTP

/// The routes every suite's test server shares, plus the suite's own, tried first by the
/// first path segment: `/hello` → "hello"; `/echo` → the body; `/bytes/<n>` → n patterned
/// bytes (``pattern(_:)``); anything else → "<METHOD> <target>".
///
/// ```swift
/// let responder = TestRoutes(["status": { request, segments, reply in
///     reply(.response(HTTPResponse(status: Int(segments[1]) ?? 500)))
/// }])
/// ```
public struct TestRoutes: Responder {
    /// A suite's route: the request, its path segments, and the reply to call exactly once.
    public typealias Route =
        @Sendable (
            _ request: HTTPRequest, _ segments: [String],
            _ reply: @escaping @Sendable (HTTPReply) -> Void
        ) -> Void

    private let own: [String: Route]

    public init(_ own: [String: Route] = [:]) {
        self.own = own
    }

    public func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        let segments = request.pathSegments
        if let first = segments.first, let route = own[first] {
            return route(request, segments, reply)
        }
        switch segments.first {
        case "hello":
            reply(
                .response(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("hello".utf8)))
            )
        case "echo":
            reply(.response(HTTPResponse(status: 200, body: request.body)))
        case "bytes":
            reply(.response(HTTPResponse(status: 200, body: Self.pattern(Self.number(segments, default: 0)))))
        default:
            reply(.response(HTTPResponse(status: 200, body: Array("\(request.method) \(request.target)".utf8))))
        }
    }

    /// `count` bytes 0, 1, ... 250, 0, 1, ...: a body whose every byte a test can check.
    public static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) }
    }

    /// The number in the second path segment (`/delay/250` → 250), or `default`.
    public static func number(_ segments: [String], default fallback: Int) -> Int {
        segments.count > 1 ? Int(segments[1]) ?? fallback : fallback
    }
}
