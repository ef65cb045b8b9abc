import LerixSDK

/// An incremental HTTP/1.1 response parser for the adapter's keep-alive client: fed bytes as
/// they arrive, it answers when one whole response is in (Content-Length, chunked, or
/// delimited by the server closing). Pure: no I/O.
///
/// Pipelined responses may arrive in one read: bytes past one response stay buffered for
/// ``next()``.
///
/// ```swift
/// var reader = HTTPResponseReader()
/// reader.append(bytes)
/// while case .complete(let response, let keepAlive) = reader.next() { … }
/// ```
struct HTTPResponseReader {
    enum Outcome: Equatable {
        case needMore
        case complete(TransportResponse, keepAlive: Bool)
        case invalid(String)
    }

    private enum Framing {
        case none
        case length(Int)
        case chunked
        case untilClose
    }

    private struct Head {
        var status: Int
        var headers: [(String, String)]
        var bodyStart: Int
        var framing: Framing
        var keepAlive: Bool
    }

    static let maximumHeadBytes = 65_536
    static let maximumBodyBytes = 16 << 20

    private var buffer: [UInt8] = []
    /// Where the next response starts in `buffer` (consumed bytes are dropped in bulk, not one
    /// response at a time, so a deep pipeline costs no quadratic copying).
    private var start = 0
    private var head: Head?
    /// Bytes the last complete response took from the front of the buffer.
    private var consumed = 0
    /// Whether the request was HEAD (a response to it has no body whatever it says).
    var expectsNoBody = false

    /// Whether any byte of a response has arrived (a reused connection that closes before
    /// answering anything can be retried safely).
    var hasReceivedBytes: Bool { buffer.count > start || head != nil }

    mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        start = 0
        head = nil
        expectsNoBody = false
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// The next whole response, removed from the buffer (what follows it stays).
    mutating func next() -> Outcome {
        let outcome = parse()
        if case .complete = outcome {
            start = min(consumed, buffer.count)
            head = nil
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            } else if start > 65_536 {
                buffer.removeFirst(start)
                start = 0
            }
        }
        return outcome
    }

    /// `append` then `next`, for a single response.
    mutating func feed(_ bytes: [UInt8]) -> Outcome {
        buffer.append(contentsOf: bytes)
        return next()
    }

    /// The server closed the connection: a close-delimited body ends here; anything else is cut.
    mutating func endOfStream() -> Outcome {
        if let head, case .untilClose = head.framing {
            let body = Array(buffer[head.bodyStart...])
            return .complete(TransportResponse(status: head.status, headers: head.headers, body: body), keepAlive: false)
        }
        return .invalid(buffer.count == start ? "the server closed the connection without answering" : "the response was cut short")
    }

    private mutating func parse() -> Outcome {
        while head == nil {
            guard let end = Self.find([13, 10, 13, 10], in: buffer, from: start) else {
                return buffer.count - start > Self.maximumHeadBytes ? .invalid("response head over 64 KiB") : .needMore
            }
            guard let parsed = parseHead(upTo: end) else { return .invalid("malformed response head") }
            if (100..<200).contains(parsed.status) && parsed.status != 101 {
                start = end + 4  // an interim response: the real one follows
                continue
            }
            head = parsed
        }
        guard let head else { return .needMore }
        switch head.framing {
        case .none:
            return complete(head, body: [], consumed: head.bodyStart)
        case .length(let n):
            guard buffer.count - head.bodyStart >= n else { return .needMore }
            return complete(head, body: Array(buffer[head.bodyStart..<(head.bodyStart + n)]), consumed: head.bodyStart + n)
        case .untilClose:
            return buffer.count - head.bodyStart > Self.maximumBodyBytes ? .invalid("response body over 16 MiB") : .needMore
        case .chunked:
            return parseChunked(head)
        }
    }

    private mutating func complete(_ head: Head, body: [UInt8], consumed: Int) -> Outcome {
        self.consumed = consumed
        return .complete(TransportResponse(status: head.status, headers: head.headers, body: body), keepAlive: head.keepAlive)
    }

    private mutating func parseChunked(_ head: Head) -> Outcome {
        var index = head.bodyStart
        var body: [UInt8] = []
        while true {
            guard let lineEnd = Self.find([13, 10], in: buffer, from: index) else { return .needMore }
            var size = 0
            var digits = 0
            for b in buffer[index..<lineEnd] {
                let value: Int
                switch b {
                case 48...57: value = Int(b) - 48
                case 65...70: value = Int(b) - 55
                case 97...102: value = Int(b) - 87
                default: value = -1
                }
                if value < 0 { break }
                size = size * 16 + value
                digits += 1
                if size > Self.maximumBodyBytes { return .invalid("chunk over 16 MiB") }
            }
            guard digits > 0 else { return .invalid("malformed chunk size") }
            index = lineEnd + 2
            if size == 0 {
                // Trailers (ignored) end with an empty line.
                var cursor = index
                while true {
                    guard let end = Self.find([13, 10], in: buffer, from: cursor) else { return .needMore }
                    if end == cursor { return complete(head, body: body, consumed: end + 2) }
                    cursor = end + 2
                }
            }
            guard buffer.count >= index + size + 2 else { return .needMore }
            body.append(contentsOf: buffer[index..<(index + size)])
            guard buffer[index + size] == 13, buffer[index + size + 1] == 10 else { return .invalid("malformed chunk") }
            index += size + 2
            if body.count > Self.maximumBodyBytes { return .invalid("response body over 16 MiB") }
        }
    }

    private func parseHead(upTo end: Int) -> Head? {
        // Status line: HTTP/1.x SP 3DIGIT [SP reason] CRLF
        let s = start
        guard end - s >= 12, buffer[s] == 72, buffer[s + 1] == 84, buffer[s + 2] == 84, buffer[s + 3] == 80,
              buffer[s + 4] == 47, buffer[s + 5] == 49, buffer[s + 6] == 46, buffer[s + 8] == 32
        else { return nil }
        let http10 = buffer[s + 7] == 48
        var status = 0
        for i in (s + 9)..<(s + 12) {
            let d = buffer[i]
            guard d >= 48, d <= 57 else { return nil }
            status = status * 10 + Int(d - 48)
        }
        guard status >= 100, end == s + 12 || buffer[s + 12] == 32 || buffer[s + 12] == 13 else { return nil }
        var headers: [(String, String)] = []
        var contentLength: Int?
        var chunked = false
        var keepAlive = !http10
        guard var lineStart = Self.find([13, 10], in: buffer, from: s).map({ $0 + 2 }) else { return nil }
        while lineStart < end {
            let lineEnd = Self.find([13, 10], in: buffer, from: lineStart).map { min($0, end) } ?? end
            guard let colon = buffer[lineStart..<lineEnd].firstIndex(of: 58), colon > lineStart else { return nil }
            var valueStart = colon + 1
            var valueEnd = lineEnd
            while valueStart < valueEnd, buffer[valueStart] == 32 || buffer[valueStart] == 9 { valueStart += 1 }
            while valueEnd > valueStart, buffer[valueEnd - 1] == 32 || buffer[valueEnd - 1] == 9 { valueEnd -= 1 }
            let name = String(decoding: buffer[lineStart..<colon], as: UTF8.self)
            let value = String(decoding: buffer[valueStart..<valueEnd], as: UTF8.self)
            headers.append((name, value))
            switch colon - lineStart {
            case 14 where Self.equalsLowercase(buffer[lineStart..<colon], "content-length"):
                guard let n = Int(value), n >= 0, n <= Self.maximumBodyBytes else { return nil }
                contentLength = n
            case 17 where Self.equalsLowercase(buffer[lineStart..<colon], "transfer-encoding"):
                chunked = value.lowercased().hasSuffix("chunked")
            case 10 where Self.equalsLowercase(buffer[lineStart..<colon], "connection"):
                let tokens = value.lowercased().split(separator: ",").map { String($0).trimmingSpacesAndTabs }
                if tokens.contains("close") { keepAlive = false }
                if tokens.contains("keep-alive") { keepAlive = true }
            default:
                break
            }
            lineStart = lineEnd + 2
        }
        let framing: Framing
        if expectsNoBody || status == 204 || status == 304 {
            framing = .none
        } else if chunked {
            framing = .chunked
        } else if let contentLength {
            framing = .length(contentLength)
        } else {
            framing = .untilClose
            keepAlive = false
        }
        return Head(status: status, headers: headers, bodyStart: end + 4, framing: framing, keepAlive: keepAlive)
    }

    /// ASCII case-insensitive comparison of header-name bytes with a lowercase name.
    static func equalsLowercase(_ bytes: ArraySlice<UInt8>, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        return lower.withUTF8Buffer { expected in
            var i = 0
            for b in bytes {
                let folded = b >= 65 && b <= 90 ? b + 32 : b
                if folded != expected[i] { return false }
                i += 1
            }
            return true
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var i = start
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == needle[0] {
                var match = true
                for k in 1..<needle.count where haystack[i + k] != needle[k] {
                    match = false
                    break
                }
                if match { return i }
            }
            i += 1
        }
        return nil
    }
}

extension String {
    var trimmingSpacesAndTabs: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
