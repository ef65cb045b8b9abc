/// Size limits an HTTP/1.1 parser enforces before buffering more of a request.
///
/// The defaults are the wire contract's (CONTRACT.md "Errors"): a body over 1 MiB is 413,
/// a request target over 8 KiB is 414, a header section over 16 KiB is 431.
///
/// ```swift
/// var limits = HTTPLimits()
/// limits.maxBodyBytes = 64 * 1024
/// var parser = HTTPRequestParser(limits: limits)
/// ```
public struct HTTPLimits: Sendable, Equatable {
    /// Largest accepted body (after de-chunking), in bytes; larger is 413.
    public var maxBodyBytes: Int
    /// Longest accepted request target, in bytes; longer is 414.
    public var maxTargetBytes: Int
    /// Largest accepted header section (field lines with their line ends, without the
    /// request line and the final empty line), in bytes; larger is 431. Also bounds trailers.
    public var maxHeaderBytes: Int

    public init(maxBodyBytes: Int = 1 << 20, maxTargetBytes: Int = 8 << 10, maxHeaderBytes: Int = 16 << 10) {
        self.maxBodyBytes = maxBodyBytes
        self.maxTargetBytes = maxTargetBytes
        self.maxHeaderBytes = maxHeaderBytes
    }
}
