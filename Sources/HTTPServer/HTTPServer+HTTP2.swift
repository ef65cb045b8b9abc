extension HTTPServer {
    /// The HTTP/2 plug-in for a new server: h2c by prior knowledge and by `Upgrade: h2c`
    /// on the same port as HTTP/1.1 (see ``HTTP2ConnectionFactory`` and ``HTTP2Handler``).
    static func makeHTTP2Factory(_ configuration: Configuration) -> (any HTTP2ConnectionFactory)? {
        configuration.speaksHTTP2 ? HTTP2HandlerFactory() : nil
    }
}
