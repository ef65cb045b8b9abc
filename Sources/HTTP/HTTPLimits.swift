/// Size limits every request meets before more of it is buffered, over HTTP/1.1 and HTTP/2
/// alike: the same limit breaks with the same status and message on both.
///
/// The defaults are the wire contract's (CONTRACT.md "Errors"): a body over 1 MiB is 413,
/// a request target (HTTP/2's `:path`) over 8 KiB is 414, a header section over 16 KiB is
/// 431. An HTTP/2 header section counts as its HTTP/1.1 form would: each field as
/// `name: value` with its line end, `:authority` as the `Host` field.
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

extension HTTPLimits {
    /// A body (after de-chunking) over ``maxBodyBytes``.
    public var bodyTooLarge: HTTPParseError {
        HTTPParseError(status: 413, message: "the body is larger than \(maxBodyBytes) bytes")
    }

    /// A request target over ``maxTargetBytes``.
    public var targetTooLong: HTTPParseError {
        HTTPParseError(status: 414, message: "the request target is longer than \(maxTargetBytes) bytes")
    }

    /// A header section over ``maxHeaderBytes``.
    public var headerSectionTooLarge: HTTPParseError {
        HTTPParseError(status: 431, message: "the header section is larger than \(maxHeaderBytes) bytes")
    }

    /// The bytes one field line takes in an HTTP/1.1 header section: `name: value` and CRLF.
    public static func fieldLineBytes(nameBytes: Int, valueBytes: Int) -> Int {
        nameBytes + valueBytes + 4
    }
}
