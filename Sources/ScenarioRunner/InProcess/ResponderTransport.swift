import HTTP
import LerixSDK
import Synchronization

/// The SDK's ``Transport`` wired straight into a ``Responder`` (the in-process MockServer):
/// devices' checks, token registrations and ingest reach the server without sockets.
///
/// A reply the responder does not give at once (a `delay` fault, which waits on the server's
/// manual clock) counts as a timeout: the runner, which owns the clock, is the one waiting.
///
/// ```swift
/// let transport = ResponderTransport(responder: mockServer, baseURL: "http://lerix.test")
/// ```
public final class ResponderTransport: Transport {
    let responder: any Responder
    let baseURL: String

    public init(responder: any Responder, baseURL: String) {
        self.responder = responder
        self.baseURL = baseURL
    }

    public func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        guard request.url.hasPrefix(baseURL) else {
            completion(.failure(TransportError("no server at \(request.url) (the in-process server is \(baseURL))")))
            return
        }
        var target = String(request.url.dropFirst(baseURL.count))
        if target.isEmpty || target.first == "?" { target = "/" + target }
        var headers = HTTPHeaders()
        for (name, value) in request.headers { headers.add(name, value) }
        if !headers.contains("Host") { headers.set("Host", "lerix.test") }
        let httpRequest = HTTPRequest(method: request.method, target: target, headers: headers, body: request.body)
        let answered = Mutex<Bool>(false)
        let result = Mutex<TransportResult?>(nil)
        responder.respond(to: httpRequest) { reply in
            let first = answered.withLock { was -> Bool in
                defer { was = true }
                return !was
            }
            guard first else { return }
            switch reply {
            case .response(let response):
                result.withLock { $0 = .success(TransportResponse(status: response.status, headers: response.headers.map { ($0.name, $0.value) },
                                                                  body: response.body)) }
            case .close:
                result.withLock { $0 = .failure(TransportError("connection reset by the server")) }
            case .stream(_, let stream):
                stream.end()   // SDKs never ask for a stream; nothing here would read it
                result.withLock { $0 = .failure(TransportError("the server answered with an event stream")) }
            }
        }
        let synchronous = answered.withLock { was -> Bool in
            defer { was = true }
            return was
        }
        if synchronous, let r = result.withLock({ $0 }) {
            completion(r)
        } else {
            completion(.failure(TransportError("timed out: the server did not answer")))
        }
    }
}
