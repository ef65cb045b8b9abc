/// One request, whichever protocol carried it (HTTP/1.x or an HTTP/2 stream).
///
/// ```swift
/// let request = HTTPRequest(method: "GET", target: "/v1/projects/demo/release-control?platform=ios")
/// request.path                 // "/v1/projects/demo/release-control"
/// request.query("platform")    // "ios"
/// ```
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target as sent: path and query, still percent-encoded.
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(
        method: String,
        target: String,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The path part of the target, percent-decoded ("/" when empty).
    public var path: String {
        let raw =
            target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let decoded = PercentDecoding.decode(raw, plusIsSpace: false) ?? raw
        return decoded.isEmpty ? "/" : decoded
    }

    /// Path segments, each percent-decoded on its own so an encoded "/" stays inside its segment.
    public var pathSegments: [String] {
        let raw = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return raw.split(separator: "/", omittingEmptySubsequences: true).map {
            PercentDecoding.decode(String($0), plusIsSpace: false) ?? String($0)
        }
    }

    /// Query parameters in order, percent-decoded ("+" is a space).
    public var queryItems: [(name: String, value: String)] {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return [] }
        return parts[1].split(separator: "&", omittingEmptySubsequences: true).map { item in
            let kv = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(String(kv[0]), plusIsSpace: true) ?? String(kv[0])
            let value = kv.count > 1 ? (PercentDecoding.decode(String(kv[1]), plusIsSpace: true) ?? String(kv[1])) : ""
            return (name: name, value: value)
        }
    }

    /// The first value of query parameter `name`.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
// The cases read as the versions' wire names (HTTP/1.0, HTTP/1.1).
public enum HTTPVersion: Sendable, Equatable {
    case http1_0
    case http1_1
    case http2

    public var text: String {
        switch self {
        case .http1_0: return "HTTP/1.0"
        case .http1_1: return "HTTP/1.1"
        case .http2: return "HTTP/2"
        }
    }
}

/// Percent-decoding (RFC 3986 §2.1) shared by every reader of request targets.
public enum PercentDecoding {
    /// nil when an escape is malformed or the result is not UTF-8.
    public static func decode(_ s: String, plusIsSpace: Bool) -> String? {
        decode(s.utf8, plusIsSpace: plusIsSpace)
    }

    /// Byte-level form, for hot paths that slice targets without making Strings first.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, plusIsSpace: Bool) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            i = bytes.index(after: i)
            if b == UInt8(ascii: "%") {
                guard i < bytes.endIndex, let hv = hex(bytes[i]) else { return nil }
                i = bytes.index(after: i)
                guard i < bytes.endIndex, let lv = hex(bytes[i]) else { return nil }
                i = bytes.index(after: i)
                out.append(hv << 4 | lv)
            } else if b == UInt8(ascii: "+") && plusIsSpace {
                out.append(0x20)
            } else {
                out.append(b)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }
}
