/// Writes HTTP/1.1 requests as bytes (RFC 9112 §3): request line, `Host`, fields, framing, body.
///
/// The serializer owns body framing: `Content-Length` and `Transfer-Encoding` in the request's
/// own fields are dropped and `Content-Length` is written from the body, so the bytes on the
/// wire always agree with themselves. Every other field goes out as given, in order.
///
/// ```swift
/// let url = try HTTPURL(parsing: "http://127.0.0.1:8080/healthz")
/// var out: [UInt8] = []
/// HTTPRequestSerializer.write(HTTPRequest(method: "GET", target: url.target), authority: url.authority, to: &out)
/// // "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
/// ```
public enum HTTPRequestSerializer {
    /// Appends `request` to `out`.
    /// - Parameter authority: the `Host` field (``HTTPURL/authority``), written first unless
    ///   the request carries its own `Host`.
    public static func write(_ request: HTTPRequest, authority: String, to out: inout [UInt8]) {
        out.reserveCapacity(
            out.count + 128 + request.target.utf8.count + request.headers.count * 32 + request.body.count
        )
        out.append(contentsOf: request.method.utf8)
        out.append(.sp)
        out.append(contentsOf: request.target.utf8)
        out.append(contentsOf: versionAndLineEnd)
        if !request.headers.contains("Host") {
            out.append(contentsOf: hostPrefix)
            out.append(contentsOf: authority.utf8)
            out.append(.cr)
            out.append(.lf)
        }
        for field in request.headers.fields {
            let name = field.name.utf8
            if name.count == 14 && HTTPHeaders.namesEqual(field.name, "content-length")
                || name.count == 17 && HTTPHeaders.namesEqual(field.name, "transfer-encoding")
            {
                continue
            }
            out.append(contentsOf: name)
            out.append(.colon)
            out.append(.sp)
            out.append(contentsOf: field.value.utf8)
            out.append(.cr)
            out.append(.lf)
        }
        if !request.body.isEmpty || methodExpectsBody(request.method) {
            out.append(contentsOf: contentLengthPrefix)
            out.append(contentsOf: String(request.body.count).utf8)
            out.append(.cr)
            out.append(.lf)
        }
        out.append(.cr)
        out.append(.lf)
        out.append(contentsOf: request.body)
    }

    /// `request` as one buffer.
    public static func bytes(_ request: HTTPRequest, authority: String) -> [UInt8] {
        var out: [UInt8] = []
        write(request, authority: authority, to: &out)
        return out
    }

    /// POST, PUT and PATCH announce even an empty body: a server may answer 411 otherwise.
    static func methodExpectsBody(_ method: String) -> Bool {
        method == "POST" || method == "PUT" || method == "PATCH"
    }

    private static let versionAndLineEnd: [UInt8] = Array(" HTTP/1.1\r\n".utf8)
    private static let hostPrefix: [UInt8] = Array("Host: ".utf8)
    private static let contentLengthPrefix: [UInt8] = Array("Content-Length: ".utf8)
}
