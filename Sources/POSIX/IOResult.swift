/// The outcome of a non-blocking read or write that did not fail.
public enum IOResult: Sendable, Equatable {
    /// This many bytes moved (never 0 for a read: see ``endOfFile``).
    case processed(Int)
    /// The call would have blocked (`EAGAIN`): wait for the descriptor to become ready.
    case wouldBlock
    /// A read found the peer's end of stream. Not an error.
    case endOfFile
}
