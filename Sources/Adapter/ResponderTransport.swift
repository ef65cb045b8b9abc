import HTTP
import LerixSDK
import Synchronization

/// The SDK's ``Transport`` wired straight into a ``Responder`` (the in-process MockServer):
/// devices' checks, token registrations and ingest reach the server without sockets.
///
/// A reply the responder does not give at once (a `delay` fault, which waits on the server's
/// manual clock) counts as a timeout: the runner, which owns the clock, is the one waiting.
/// Package-wide: ``LerixMock`` and the scenario runner's in-process adapter build on it.
package final class ResponderTransport: Transport, AdapterNetwork {
    package let responder: any Responder
    package let baseURL: String
    /// The last URL sent and its target: a fleet's devices come one after another in creation
    /// order, so the next device mostly asks for the same URL, and comparing it costs less than
    /// cutting and copying a new target.
    private let lastTarget = Mutex<SentTarget?>(nil)
    /// The last request fields converted for the server, and what they were converted from: a
    /// device class's checks send the same fields (`Accept`, and the `If-None-Match` of the
    /// answer they share), which then need no array of their own.
    private let lastRequestFields = Mutex<ConvertedRequestFields?>(nil)
    /// The last response fields converted for the SDK, and what they were converted from: the
    /// server hands a device class's checks at one instant the same fields (one array), which
    /// then need no conversion of their own (an array and four pairs per check).
    private let lastHeaders = Mutex<ConvertedHeaders?>(nil)

    /// Structs, not tuples: Swift copies tuples through a generic path, and these are read per check.
    private struct SentTarget {
        let url: String
        let target: String
    }

    private struct ConvertedRequestFields {
        let headers: [(name: String, value: String)]
        let fields: [HTTPField]
    }

    private struct ConvertedHeaders {
        let fields: [HTTPField]
        let converted: [(name: String, value: String)]
    }

    package init(responder: any Responder, baseURL: String) {
        self.responder = responder
        self.baseURL = baseURL
    }

    package func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        guard let target = target(of: request.url) else {
            completion(.failure(TransportError("no server at \(request.url) (the in-process server is \(baseURL))")))
            return
        }
        let forwarded = HTTPRequest(
            method: request.method,
            target: target,
            headers: HTTPHeaders(fields: requestFields(request.headers)),
            body: request.body
        )
        // Answered in place (a MockServer's check needs no reply box nor closure); a reply that
        // comes later is a timeout, dropped when it comes.
        guard let reply = responder.replyAtOnce(to: forwarded, late: Self.dropLateReply) else {
            return completion(.failure(TransportError("timed out: the server did not answer")))
        }
        completion(result(of: reply))
    }

    /// A reply given after `send` returned: the device took it as a timeout already.
    private static let dropLateReply: @Sendable (HTTPReply) -> Void = { reply in
        if case .stream(_, let stream) = reply { stream.end() }  // nothing here would read it
    }
}

extension ResponderTransport {
    /// The host's network as it is: every `send` has completed (answered, or given up as a
    /// timeout) before it returns, so there is never anything to wait for, nor requests in flight.
    package func runUntilIdle() {}

    /// `fields` as a ``TransportResponse`` holds them; the last conversion again when `fields`
    /// is the very array converted last (held by the memo, so its storage cannot be reused).
    func transportHeaders(_ fields: [HTTPField]) -> [(name: String, value: String)] {
        if let converted = lastHeaders.withLock({ last -> [(name: String, value: String)]? in
            guard let last, last.fields.count == fields.count, Self.sameStorage(last.fields, fields) else { return nil }
            return last.converted
        }) {
            return converted
        }
        let converted = fields.map { (name: $0.name, value: $0.value) }
        lastHeaders.withLock { $0 = ConvertedHeaders(fields: fields, converted: converted) }
        return converted
    }

    private static func sameStorage(_ a: [HTTPField], _ b: [HTTPField]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    /// The request target `url` names on the in-process server, or nil for another server.
    func target(of url: String) -> String? {
        if let target = lastTarget.withLock({ $0?.url == url ? $0?.target : nil }) { return target }
        guard url.hasPrefix(baseURL) else { return nil }
        var target = String(url.utf8.dropFirst(baseURL.utf8.count)) ?? ""
        if target.isEmpty || target.utf8.first == UInt8(ascii: "?") { target = "/" + target }
        lastTarget.withLock { $0 = SentTarget(url: url, target: target) }
        return target
    }

    /// `headers` as the server reads them, `Host` added when missing; the last conversion again
    /// when `headers` holds the same fields (mostly the very strings: a device's ETag is the
    /// server's, handed to every device of its class).
    func requestFields(_ headers: [(name: String, value: String)]) -> [HTTPField] {
        // Compared in the lock: copying the memo out cost more than the comparison.
        if let fields = lastRequestFields.withLock({ last -> [HTTPField]? in
            guard let last, Self.sameFields(last.headers, headers) else { return nil }
            return last.fields
        }) {
            return fields
        }
        var fields: [HTTPField] = []
        fields.reserveCapacity(headers.count + 1)  // one allocation per request, Host included
        var hasHost = false
        for (name, value) in headers {
            hasHost = hasHost || HTTPHeaders.namesEqual(name, "Host")
            fields.append(HTTPField(name, value))
        }
        if !hasHost { fields.append(HTTPField("Host", "lerix.test")) }
        lastRequestFields.withLock { $0 = ConvertedRequestFields(headers: headers, fields: fields) }
        return fields
    }

    /// The same names and values in the same order (mostly the very strings, compared by identity).
    static func sameFields(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                for i in 0..<x.count where x[i].name != y[i].name || x[i].value != y[i].value { return false }
                return true
            }
        }
    }

    /// What the SDK gets for `reply`.
    func result(of reply: HTTPReply) -> TransportResult {
        switch reply {
        case .response(let response):
            var answer = TransportResponse(status: response.status, body: response.body)
            answer.headers = transportHeaders(response.headers.fields)
            return .success(answer)
        case .close:
            return .failure(TransportError("connection reset by the server"))
        case .stream(_, let stream):
            stream.end()  // SDKs never ask for a stream; nothing here would read it
            return .failure(TransportError("the server answered with an event stream"))
        }
    }
}
