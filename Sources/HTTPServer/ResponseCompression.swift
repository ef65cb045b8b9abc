import HTTP

/// Decides, per response, whether to gzip it, and does so: the one step every response of
/// either protocol passes through before it is framed.
///
/// ```swift
/// let compression = ResponseCompression()
/// var response = HTTPResponse(status: 200, body: bigJSON)
/// compression.apply(to: &response, acceptEncoding: request.headers["Accept-Encoding"])
/// // response.headers["Content-Encoding"] == "gzip" when the client allows it
/// ```
public struct ResponseCompression: Sendable {
    /// Bodies smaller than this go out as they are: gzip's ~20-byte frame and the CPU
    /// would not pay off.
    public var minimumBytes: Int
    /// zlib level, 1 (fast) ... 9 (small).
    public var level: Int32

    public init(minimumBytes: Int = 300, level: Int32 = 6) {
        self.minimumBytes = minimumBytes
        self.level = level
    }

    /// Gzips `response` in place when the client accepts it and it is worth it; marks every
    /// response whose encoding could depend on the request with `Vary: Accept-Encoding`.
    public func apply(to response: inout HTTPResponse, acceptEncoding: String?) {
        guard isCompressible(response) else { return }
        Self.addVary(to: &response.headers)
        guard AcceptEncoding(acceptEncoding).allowsGzip,
            let packed = try? Gzip.compress(response.body, level: level),
            packed.count < response.body.count
        else { return }
        response.body = packed
        response.headers.set("Content-Encoding", "gzip")
        if response.headers.contains("Content-Length") {
            response.headers.set("Content-Length", String(packed.count))
        }
    }

    /// Large enough, has a body by status, not already encoded, not an already-compressed media type.
    public func isCompressible(_ response: HTTPResponse) -> Bool {
        guard response.body.count >= minimumBytes,
            response.status >= 200, response.status != 204, response.status != 304, response.status != 206
        else { return false }
        if let encoding = response.headers["Content-Encoding"], encoding.lowercased() != "identity" { return false }
        if let type = response.headers["Content-Type"]?.lowercased() {
            for prefix in ["image/", "audio/", "video/", "font/woff"] where type.hasPrefix(prefix) {
                if !type.hasPrefix("image/svg") { return false }
            }
            for packed in ["application/zip", "application/gzip", "application/x-gzip", "application/zstd"]
            where type.hasPrefix(packed) { return false }
        }
        return true
    }

    static func addVary(to headers: inout HTTPHeaders) {
        guard let vary = headers["Vary"] else {
            headers.add("Vary", "Accept-Encoding")
            return
        }
        // The common value, said already: no list to split.
        if HTTPHeaders.namesEqual(vary, "Accept-Encoding") { return }
        let names = vary.split(separator: ",").map { $0.trimmingSpaces().lowercased() }
        if names.contains("accept-encoding") || names.contains("*") { return }
        headers.set("Vary", vary + ", Accept-Encoding")
    }
}
