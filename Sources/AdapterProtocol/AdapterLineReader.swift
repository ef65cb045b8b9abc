/// Splits the protocol's byte stream (an adapter's stdout) into lines, fed bytes as they
/// arrive (no I/O).
///
/// Linear in what it is fed: each byte is searched for a newline once, however small the
/// chunks, and taken lines are dropped in bulk. A line longer than ``maximumLine`` is refused
/// as soon as it is, without waiting for its end.
///
/// ```swift
/// var reader = AdapterLineReader()
/// reader.append(Array(#"{"id":7,"ok":true}"#.utf8) + [10])
/// try reader.nextLine()   // the bytes of {"id":7,"ok":true}
/// ```
public struct AdapterLineReader: Sendable {
    /// A line (newline excluded) over this many bytes ends the adapter.
    public static let defaultMaximumLine = 64 << 20

    public struct LineTooLong: Error, Equatable {
        public var limit: Int
    }

    public let maximumLine: Int
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var start = 0
    /// Bytes from `start` up to here hold no newline.
    private var scanned = 0

    public init(maximumLine: Int = AdapterLineReader.defaultMaximumLine) {
        self.maximumLine = maximumLine
    }

    /// Bytes fed and not yet taken as a line.
    public var pendingCount: Int { buffer.count - start }

    /// The bytes fed and not yet taken (for a message quoting what the adapter wrote).
    public var pending: ArraySlice<UInt8> { buffer[start...] }

    /// Adds bytes as they came; ``nextLine()`` takes the lines (and refuses one too long).
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(..<start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole line (without its newline), or nil until one has arrived. Throws once the
    /// line, finished or not, is over ``maximumLine``: call it after each ``append(_:)`` and
    /// the reader never holds more than the limit plus one chunk.
    public mutating func nextLine() throws(LineTooLong) -> [UInt8]? {
        guard let newline = buffer[scanned...].firstIndex(of: 10) else {
            scanned = buffer.count
            if buffer.count - start > maximumLine { throw LineTooLong(limit: maximumLine) }
            return nil
        }
        guard newline - start <= maximumLine else { throw LineTooLong(limit: maximumLine) }
        let line = Array(buffer[start..<newline])
        start = newline + 1
        scanned = start
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
            scanned = 0
        }
        return line
    }
}
