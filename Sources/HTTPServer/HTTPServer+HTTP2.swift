extension HTTPServer {
    /// The HTTP/2 plug-in for a new server; nil while the server speaks HTTP/1.1 only.
    /// The HTTP/2 work replaces this body (see ``HTTP2ConnectionFactory``).
    static func makeHTTP2Factory(_ configuration: Configuration) -> (any HTTP2ConnectionFactory)? {
        nil
    }
}
