/// What an ``HTTPResponseParser`` found in the bytes fed so far, in order.
public enum HTTPResponseParserEvent: Sendable {
    /// A 1xx interim response (`100 Continue`, `103 Early Hints`): the final one to the same
    /// request follows. Its `body` is empty.
    case informational(ReceivedResponse)
    /// One whole final response, to the oldest request still waiting (pipeline order).
    case response(ReceivedResponse)
    /// The bytes broke the protocol or a limit, or the connection ended too early. Close the
    /// connection; the parser ignores everything fed after it.
    case failure(HTTPResponseParseError)
}
