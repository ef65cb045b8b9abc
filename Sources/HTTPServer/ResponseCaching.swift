import CZlib
import HTTP

/// Cache directives and validators for every response, whichever responder gave it and
/// whichever protocol carries it: the caching half of the server's last touches.
///
/// - A response without `Cache-Control` gets `no-store`: what a responder does not declare
///   reusable is live state (admin listings, errors, the delivery log) that no cache between
///   a browser or curl and the server may keep.
/// - A `200` to `GET`/`HEAD` that declares itself reusable (its own `Cache-Control`, without
///   `no-store`) and carries no validator gets a weak `ETag` from its body, and an
///   `If-None-Match` naming that tag turns it into a `304` with the same metadata. Responders
///   that set their own validator (the release-control check) answer conditionals themselves.
/// - A `304`, whoever made it, loses the representation metadata (`Content-Type`, …) it
///   should not carry (RFC 9110 §15.4.5).
///
/// ```swift
/// var response = HTTPResponse(status: 200, headers: ["Cache-Control": "max-age=60"], body: doc)
/// ResponseCaching().apply(to: &response, for: request)
/// // response.headers["ETag"] == #"W/"1532-9f1c07aa""#; a 304 when request's If-None-Match names it
/// ```
public struct ResponseCaching: Sendable {
    /// What a response without its own `Cache-Control` gets.
    public static let defaultDirective = "no-store"

    public init() {}

    public func apply(to response: inout HTTPResponse, for request: HTTPRequest) {
        if response.status == 304 { Self.removeRepresentationMetadata(&response.headers) }
        guard response.headers.contains("Cache-Control") else {
            response.headers.add("Cache-Control", Self.defaultDirective)
            return
        }
        guard response.status == 200, request.method == "GET" || request.method == "HEAD",
            !response.headers.contains("ETag"), !response.headers.contains("Last-Modified"),
            !response.headers.containsToken("no-store", in: "Cache-Control")
        else { return }
        let etag = Self.etag(of: response.body)
        response.headers.add("ETag", etag)
        if let ifNoneMatch = request.headers["If-None-Match"], EntityTag.matches(ifNoneMatch: ifNoneMatch, etag: etag) {
            Self.makeNotModified(&response)
        }
    }

    /// `W/"<length hex>-<CRC-32 hex>"`: weak, because gzip may change the bytes on the wire
    /// (RFC 9110 §8.8.1), and cheap enough for documents of a few dozen KiB.
    static func etag(of body: [UInt8]) -> String {
        let crc = body.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32(truncatingIfNeeded: $0.count)) }
        return "W/\"" + String(body.count, radix: 16) + "-" + String(crc, radix: 16) + "\""
    }

    /// The 200 as a 304 (RFC 9110 §15.4.5): no content, and only the metadata a cache updates
    /// its stored response with (`Cache-Control`, `ETag`, `Vary`, …; no `Content-*`).
    static func makeNotModified(_ response: inout HTTPResponse) {
        response.status = 304
        response.body = []
        removeRepresentationMetadata(&response.headers)
    }

    /// A 304 describes no content of its own, whoever made it (the check makes its own).
    static func removeRepresentationMetadata(_ headers: inout HTTPHeaders) {
        headers.removeAll(named: isRepresentationMetadata)
    }

    private static func isRepresentationMetadata(_ name: String) -> Bool {
        switch name.utf8.count {
        case 12: return HTTPHeaders.namesEqual(name, "Content-Type")
        case 14: return HTTPHeaders.namesEqual(name, "Content-Length")
        case 16: return HTTPHeaders.namesEqual(name, "Content-Encoding")
        default: return false
        }
    }
}
