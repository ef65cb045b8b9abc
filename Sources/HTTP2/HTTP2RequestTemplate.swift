import CNghttp2
import HTTP

/// The fixed part of a request sent many times over HTTP/2 (a push fan-out: one per gateway
/// and destination): method, scheme, authority, the start of the path and every field, checked
/// and laid out once. ``HTTP2ClientSession/submit(_:pathSuffix:body:)`` adds the rest of the
/// path and a body, so a request costs no header block of its own.
///
/// ```swift
/// let template = HTTP2RequestTemplate(scheme: "http", authority: "127.0.0.1:9443",
///     shape: HTTPRequest(method: "POST", target: "/3/device/", headers: ["apns-topic": "dev.lerix.demo"]))
/// try session.submit(template, pathSuffix: token, body: payload)
/// ```
///
/// Its fields never change once made; each submit writes its own `:path` into the template's
/// name/value array before nghttp2 copies the array, so confine its use to the session's queue
/// like the session.
public final class HTTP2RequestTemplate: @unchecked Sendable {
    /// The path's start, as sent (already encoded).
    public let path: [UInt8]
    /// Names and values, one allocation for the template's life; `nva` points into it.
    private let storage: UnsafeMutablePointer<UInt8>
    /// :method, :scheme, :authority, a :path placeholder (``pathIndex``), then the fields;
    /// all but the path marked for nghttp2 not to copy. Handed to nghttp2 as it is, with the
    /// request's path written in (nghttp2 copies the array before submit returns): no copy of
    /// the array for every request.
    private let nva: UnsafeMutablePointer<nghttp2_nv>
    private let nvaCount: Int

    /// - Parameter shape: method, target (the path's start) and fields; `Host` becomes
    ///   `:authority`, connection-specific fields and fields HTTP/2 would refuse are left out,
    ///   as ``HTTP2ClientSession/submit(_:)`` leaves them out. Its body is not used.
    public init(scheme: String, authority: String, shape: HTTPRequest) {
        var block = HeaderBlock(capacity: shape.headers.count + 4)
        block.addPseudo(":method", shape.method)
        block.addPseudo(":scheme", scheme)
        block.addPseudo(":authority", shape.headers["Host"] ?? authority)
        block.addPseudo(":path", "")
        for field in shape.headers
        where !HeaderBlock.isConnectionSpecific(field.name) && !HTTPHeadersNames.equal("host", field.name) {
            block.add(field.name, field.value)
        }
        path = Array(shape.target.utf8)
        let bytes = block.bytes
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        base.initialize(from: bytes, count: bytes.count)
        storage = base
        // nghttp2 keeps pointers to these bytes instead of copying (and lowercasing) them for
        // every request: each stream holds its template until nghttp2 has framed its HEADERS
        // (``HTTP2ClientSession`` keeps it on the stream). The path (index 3) changes per
        // request and is copied.
        let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        let fields = block.spans.enumerated().map { i, span in
            nghttp2_nv(
                name: base + span.nameStart,
                value: base + span.nameStart + span.nameCount,
                namelen: span.nameCount,
                valuelen: span.valueCount,
                flags: span.flags | (i == Self.pathIndex ? UInt8(NGHTTP2_NV_FLAG_NONE.rawValue) : noCopy)
            )
        }
        nvaCount = fields.count
        nva = UnsafeMutablePointer<nghttp2_nv>.allocate(capacity: fields.count)
        nva.initialize(from: fields, count: fields.count)
    }

    /// Where `:path` sits in ``nva``.
    static let pathIndex = 3

    deinit {
        nva.deinitialize(count: nvaCount)
        nva.deallocate()
        storage.deallocate()
    }

    /// Calls `body` with the request's name/value array and its count, `path` as `:path`; the
    /// array is valid during `body` (pass it to nghttp2, which copies it and `path`), the fields
    /// it points to while this template is.
    func withNameValues<R>(path: UnsafeBufferPointer<UInt8>, _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        nva[Self.pathIndex].value = UnsafeMutablePointer(mutating: path.baseAddress)
        nva[Self.pathIndex].valuelen = path.count
        defer {
            nva[Self.pathIndex].value = nil
            nva[Self.pathIndex].valuelen = 0
        }
        return body(nva, nvaCount)
    }
}
