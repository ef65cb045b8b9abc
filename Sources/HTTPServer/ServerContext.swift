import Dispatch
import HTTP
import TLS

/// What every connection of one server shares: settings, the application, the log sink,
/// the protocol plug-ins and the response pipeline. Immutable, so freely shared.
final class ServerContext: Sendable {
    let configuration: HTTPServer.Configuration
    let responder: any Responder
    /// The responder's ``Responder/wantsBatchEnds``, asked once.
    let endsBatches: Bool
    /// Where request log lines go; each loop batches its lines (``RequestLogBatch``).
    let log: (any RequestLogSink)?
    /// The HTTP/2 plug-in; nil until HTTP/2 lands (see ``HTTP2ConnectionFactory``).
    let http2: (any HTTP2ConnectionFactory)?
    /// Certificate and key when the port also speaks TLS (see ``Connection``).
    var tls: TLSContext? { configuration.tls }
    let headerReadTimeout: UInt64
    let idleTimeout: UInt64
    let requestReadTimeout: UInt64
    /// Request-body memory shared by every connection (``HTTPServer/Configuration/maxBufferedBodyBytes``).
    let bodyBudget: BodyBudget
    /// Gives freed body memory back to the kernel after connections close.
    let freedMemory: FreedMemoryReturn
    let compression = ResponseCompression()
    let caching = ResponseCaching()

    init(
        configuration: HTTPServer.Configuration,
        responder: any Responder,
        log: (any RequestLogSink)?,
        http2: (any HTTP2ConnectionFactory)?
    ) {
        self.configuration = configuration
        self.responder = responder
        self.endsBatches = responder.wantsBatchEnds
        self.log = log
        self.http2 = http2
        self.bodyBudget = BodyBudget(limit: configuration.maxBufferedBodyBytes)
        self.freedMemory = FreedMemoryReturn(budget: bodyBudget)
        self.headerReadTimeout = configuration.headerReadTimeout.nanosecondsClamped
        self.idleTimeout = configuration.idleTimeout.nanosecondsClamped
        self.requestReadTimeout = configuration.requestReadTimeout.nanosecondsClamped
    }

    /// Every response passes through here before it is serialized, whichever protocol
    /// carries it: the one place for cache directives and validators (``ResponseCaching``),
    /// content coding (gzip) and other last touches.
    ///
    /// The server owns `Date`, like framing: one clock for every answer. A responder's own
    /// `Date` goes here; the protocol writes the loop's (``DateField``) as it frames the head,
    /// so answers that need no other touch leave their fields unchanged (and uncopied).
    func finalize(_ response: inout HTTPResponse, for request: HTTPRequest) {
        response.headers.remove("Date")
        caching.apply(to: &response, for: request)
        if response.status == 304 {
            // A 304 carries the Vary its 200 would have (RFC 9110 §15.4.5). Whether that 200
            // was large enough to gzip is not known here (the check makes its own 304s), so
            // every 304 says it. The check's 304s say it already, so their shared fields stay
            // uncopied.
            ResponseCompression.addVary(to: &response.headers)
        } else if response.body.count >= compression.minimumBytes {
            // Small bodies (the hot path) skip the Accept-Encoding lookup entirely.
            compression.apply(to: &response, acceptEncoding: request.headers["Accept-Encoding"])
        }
    }

    /// Monotonic nanoseconds (timeouts and log durations; never the app's clock).
    @inline(__always)
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
