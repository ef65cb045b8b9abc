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
/// Immutable once made; confine its use to the session's queue like the session.
public final class HTTP2RequestTemplate: @unchecked Sendable {
    /// The path's start, as sent (already encoded).
    public let path: [UInt8]
    /// Names and values, one allocation for the template's life; `nva` points into it.
    private let storage: UnsafeMutablePointer<UInt8>
    /// :method, :scheme, :authority, a :path placeholder (index 3), then the fields.
    private let nva: [nghttp2_nv]

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
        nva = block.spans.map { span in
            nghttp2_nv(name: base + span.nameStart, value: base + span.nameStart + span.nameCount,
                       namelen: span.nameCount, valuelen: span.valueCount, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
    }

    deinit { storage.deallocate() }

    /// Writes the request's name/value array into `out` with `path` as `:path`; valid while
    /// `path` and this template are.
    func fill(_ out: inout [nghttp2_nv], path: UnsafeBufferPointer<UInt8>) {
        out.removeAll(keepingCapacity: true)
        out.append(contentsOf: nva)
        out[3].value = UnsafeMutablePointer(mutating: path.baseAddress)
        out[3].valuelen = path.count
    }
}
