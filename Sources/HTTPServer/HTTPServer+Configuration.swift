import Clock
import HTTP
import Sockets
import TLS

extension HTTPServer {
    /// Where to listen and how to treat clients. Every field has a sensible default.
    ///
    /// ```swift
    /// var configuration = HTTPServer.Configuration(host: "0.0.0.0", port: 8080)
    /// configuration.idleTimeout = .seconds(30)
    /// ```
    public struct Configuration: Sendable {
        /// A numeric IPv4/IPv6 address ("127.0.0.1", "0.0.0.0", "::1") or a name ("localhost").
        public var host: String
        /// 0 lets the kernel pick; ``HTTPServer/start()`` returns the bound port.
        public var port: Int
        /// Body, target and header-section limits (413/414/431), for HTTP/1.1 and HTTP/2 alike.
        public var limits: HTTPLimits
        /// How long a client may take to send a request head once it started one
        /// (slowloris guard). Counted in real, monotonic time, whatever the app's clock.
        public var headerReadTimeout: Duration
        /// How long a whole request (head and body) may take to arrive from its first
        /// byte, however steadily it trickles in; a late one hears 408. Real, monotonic time.
        public var requestReadTimeout: Duration
        /// How long a keep-alive connection may sit without a request, a stalled body
        /// upload may go without progress, and a reader may leave an answer unread.
        public var idleTimeout: Duration
        /// Connections beyond this many are closed on accept.
        public var maxConnections: Int
        /// How many serial queues share the connections (each with one read buffer).
        public var eventLoopCount: Int
        /// Requests one connection may have waiting for answers before reading pauses.
        public var maxPipelinedRequests: Int
        /// How long a graceful stop waits for in-flight requests before closing anyway.
        public var shutdownGracePeriod: Duration
        /// What every response's `Date` reads: the application's clock, so that `Date` and the
        /// times in the answers agree (a manual clock moves both). Timeouts never read it.
        public var clock: any InstantSource
        /// When set, the port speaks TLS (ALPN h2 and http/1.1) to clients whose first byte is a
        /// TLS handshake, and plain HTTP/1.1 and h2c to the rest. Make it with ``TLSContext/server(certificateFile:keyFile:now:)``.
        public var tls: TLSContext?
        /// Request-body bytes one HTTP/2 connection may hold over all its streams (at least one
        /// whole body, ``HTTPLimits/maxBodyBytes``); past it a stream is answered 503.
        public var maxBufferedBodyBytesPerConnection = 4 << 20
        /// Request-body bytes the whole server may hold at once, HTTP/1.1 and HTTP/2 together:
        /// uploads that never finish, each within its connection's bound, must not add up to
        /// more memory than the machine has. Past it a request is answered 503.
        public var maxBufferedBodyBytes = 128 << 20
        /// Off: the port speaks HTTP/1.1 only and answers an HTTP/2 preface with 505 (as a
        /// server built without HTTP/2 would); on by default.
        public var speaksHTTP2 = true

        public init(
            host: String = "127.0.0.1",
            port: Int = 8080,
            limits: HTTPLimits = HTTPLimits(),
            headerReadTimeout: Duration = .seconds(10),
            requestReadTimeout: Duration = .seconds(30),
            idleTimeout: Duration = .seconds(75),
            maxConnections: Int = 16_384,
            eventLoopCount: Int = Posix.processorCount,
            maxPipelinedRequests: Int = 64,
            shutdownGracePeriod: Duration = .seconds(30),
            clock: any InstantSource = SystemClock(),
            tls: TLSContext? = nil
        ) {
            self.host = host
            self.port = port
            self.limits = limits
            self.headerReadTimeout = headerReadTimeout
            self.requestReadTimeout = requestReadTimeout
            self.idleTimeout = idleTimeout
            self.maxConnections = maxConnections
            self.eventLoopCount = eventLoopCount
            self.maxPipelinedRequests = maxPipelinedRequests
            self.shutdownGracePeriod = shutdownGracePeriod
            self.clock = clock
            self.tls = tls
        }
    }
}

extension Duration {
    /// Whole nanoseconds, at least 1 (a zero timeout would fire in a loop), at most ~292 years.
    var nanosecondsClamped: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 1 }
        if seconds > Int64(UInt64.max / 1_000_000_000) - 1 { return UInt64.max / 2 }
        return max(1, UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))
    }
}
