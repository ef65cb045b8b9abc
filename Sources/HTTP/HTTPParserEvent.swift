/// What an ``HTTPRequestParser`` found in the bytes fed so far.
public enum HTTPParserEvent: Sendable {
    /// A complete request. `keepAlive` applies the version's default (1.1 persistent,
    /// 1.0 not) and the `Connection` field's `close` / `keep-alive` tokens.
    case request(HTTPRequest, keepAlive: Bool)
    /// The head carried `Expect: 100-continue` and none of its body has arrived yet:
    /// the server should send `100 Continue` (unless earlier answers are still pending).
    case expectContinue
    /// The input broke the protocol or a limit: answer `error.status`, then close the
    /// connection. The parser ignores everything fed after a failure.
    case failure(HTTPParseError)
}
