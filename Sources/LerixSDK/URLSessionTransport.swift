import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Transport``: URLSession (libcurl underneath on Linux), HTTP/1.1 or HTTP/2 as
/// the platform negotiates, gzip handled by the system.
///
/// ```swift
/// let lerix = Lerix(configuration: config, transport: URLSessionTransport(timeout: .seconds(10)), storage: disk)
/// ```
public final class URLSessionTransport: Transport {
    // URLSession is thread-safe; both properties are immutable after init.
    private let session: URLSession
    private let timeoutSeconds: Double

    /// Sends through `session`; a request without an answer after `timeout` fails.
    public init(session: URLSession = .shared, timeout: Duration = .seconds(30)) {
        self.session = session
        self.timeoutSeconds = Double(timeout.milliseconds) / 1000
    }

    /// Sends `request`; `completion` runs on URLSession's queue.
    public func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        guard let url = URL(string: request.url) else {
            completion(.failure(TransportError("not a URL: \(request.url)")))
            return
        }
        var urlRequest = URLRequest(
            url: url,
            cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: timeoutSeconds
        )
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let task = session.dataTask(with: urlRequest) { data, response, error in
            if let error {
                completion(.failure(TransportError(error.localizedDescription)))
                return
            }
            guard let http = response as? HTTPURLResponse else {
                completion(.failure(TransportError("not an HTTP response")))
                return
            }
            var headers: [(String, String)] = []
            for (name, value) in http.allHeaderFields {
                headers.append((String(describing: name), String(describing: value)))
            }
            completion(
                .success(
                    TransportResponse(status: http.statusCode, headers: headers, body: data.map { Array($0) } ?? [])
                )
            )
        }
        task.resume()
    }
}
