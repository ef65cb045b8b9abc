/// How much of a response an ``HTTPResponseParser`` buffers before it gives up with
/// ``HTTPResponseParseError/Kind/tooLarge``: a broken or hostile server cannot make a client
/// hold unbounded memory.
///
/// ```swift
/// var parser = HTTPResponseParser(limits: HTTPResponseLimits(maxBodyBytes: 1 << 20))
/// ```
public struct HTTPResponseLimits: Sendable, Equatable {
    /// Largest status line plus header section (and, separately, trailer section), in bytes.
    public var maxHeadBytes: Int
    /// Largest body (after de-chunking), in bytes.
    public var maxBodyBytes: Int

    public init(maxHeadBytes: Int = 64 << 10, maxBodyBytes: Int = 16 << 20) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }
}
