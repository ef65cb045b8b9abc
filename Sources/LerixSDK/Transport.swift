/// One HTTP exchange, as small as the SDK needs: the seam between the SDK and the network.
///
/// ``URLSessionTransport`` is the default; tests use ``InMemoryTransport``; the adapter brings
/// a keep-alive client of its own. `completion` is called exactly once, on any thread, or
/// even before `send` returns.
public protocol Transport: Sendable {
    func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void)
}

/// A request the SDK sends.
public struct TransportRequest: Equatable, Sendable {
    /// `GET`, `PUT` or `POST`.
    public var method: String
    /// An absolute `http://` or `https://` URL.
    public var url: String
    /// Header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body bytes (empty for none).
    public var body: [UInt8]

    /// A request to `url` (a string, not a Foundation `URL`: it is built and parsed on the adapter's hot path).
    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers.map { (name: $0.0, value: $0.1) }
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { TransportResponse.namesEqual($0.name, name) }?.value
    }

    /// Same method, URL, headers in order, and body.
    public static func == (lhs: TransportRequest, rhs: TransportRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// A response the transport received.
public struct TransportResponse: Equatable, Sendable {
    /// The HTTP status.
    public var status: Int
    /// Header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body bytes (empty for a 304).
    public var body: [UInt8]

    /// A response with `status`, header fields in order, and a body.
    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers.map { (name: $0.0, value: $0.1) }
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        // Read for every answer: names of another length are passed over at once, and one
        // spelled as asked needs no case folding.
        let length = name.utf8.count
        for i in headers.indices where headers[i].name.utf8.count == length {
            if headers[i].name == name || Self.namesEqual(headers[i].name, name) { return headers[i].value }
        }
        return nil
    }

    /// ASCII case-insensitive, without allocating (this runs for every header of every answer).
    public static func namesEqual(_ a: String, _ b: String) -> Bool {
        // Most names looked for differ in length from most names present: O(1) for native strings.
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b  // withUTF8 reads native and small strings in place
        return a.withUTF8 { left in
            b.withUTF8 { right in
                for i in 0..<left.count where lowercased(left[i]) != lowercased(right[i]) { return false }
                return true
            }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }

    /// Same status, headers in order, and body.
    public static func == (lhs: TransportResponse, rhs: TransportResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// Why no response arrived (offline, refused, reset, timed out), in words for a log.
public struct TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Why, in words for a log.
    public var reason: String
    /// An error saying `reason`.
    public init(_ reason: String) { self.reason = reason }
    /// The reason.
    public var description: String { reason }
}

/// A response, or why none arrived.
public typealias TransportResult = Result<TransportResponse, TransportError>
