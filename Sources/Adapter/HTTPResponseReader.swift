import LerixSDK

/// An incremental HTTP/1.1 response parser for the adapter's keep-alive client: fed bytes as
/// they arrive, it answers when one whole response is in (Content-Length, chunked, or
/// delimited by the server closing). Pure: no I/O.
///
/// ```swift
/// var reader = HTTPResponseReader()
/// if case .complete(let response, let keepAlive) = reader.feed(Array("HTTP/1.1 304 Not Modified\r\n\r\n".utf8)) { … }
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
    private var head: Head?
    /// Whether the request was HEAD (a response to it has no body whatever it says).
    var expectsNoBody = false

    /// Whether any byte of a response has arrived (a reused connection that closes before
    /// answering anything can be retried safely).
    var hasReceivedBytes: Bool { !buffer.isEmpty || head != nil }

    mutating func reset(expectsNoBody: Bool = false) {
        buffer.removeAll(keepingCapacity: true)
        head = nil
        self.expectsNoBody = expectsNoBody
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        buffer.append(contentsOf: bytes)
        return parse()
    }

    mutating func feed(_ bytes: [UInt8]) -> Outcome {
        buffer.append(contentsOf: bytes)
        return parse()
    }

    /// The server closed the connection: a close-delimited body ends here; anything else is cut.
    mutating func endOfStream() -> Outcome {
        if let head, case .untilClose = head.framing {
            let body = Array(buffer[head.bodyStart...])
            return .complete(TransportResponse(status: head.status, headers: head.headers, body: body), keepAlive: false)
        }
        return .invalid(buffer.isEmpty ? "the server closed the connection without answering" : "the response was cut short")
    }

    private mutating func parse() -> Outcome {
        while head == nil {
            guard let end = Self.find([13, 10, 13, 10], in: buffer, from: 0) else {
                return buffer.count > Self.maximumHeadBytes ? .invalid("response head over 64 KiB") : .needMore
            }
            guard let parsed = parseHead(upTo: end) else { return .invalid("malformed response head") }
            if (100..<200).contains(parsed.status) && parsed.status != 101 {
                buffer.removeFirst(end + 4)  // an interim response: the real one follows
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

    private func complete(_ head: Head, body: [UInt8], consumed: Int) -> Outcome {
        // Bytes past the response mean the server sent more than asked: do not reuse the connection.
        let clean = consumed == buffer.count
        return .complete(TransportResponse(status: head.status, headers: head.headers, body: body),
                         keepAlive: head.keepAlive && clean)
    }

    private func parseChunked(_ head: Head) -> Outcome {
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
        let text = String(decoding: buffer[0..<end], as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { return nil }
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]),
              (100...999).contains(status)
        else { return nil }
        let http10 = statusLine[0] == "HTTP/1.0"
        var headers: [(String, String)] = []
        var contentLength: Int?
        var chunked = false
        var keepAlive = !http10
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...]).trimmingSpacesAndTabs
            headers.append((name, value))
            switch name.lowercased() {
            case "content-length":
                guard let n = Int(value), n >= 0, n <= Self.maximumBodyBytes else { return nil }
                contentLength = n
            case "transfer-encoding":
                chunked = value.lowercased().hasSuffix("chunked")
            case "connection":
                let tokens = value.lowercased().split(separator: ",").map { String($0).trimmingSpacesAndTabs }
                if tokens.contains("close") { keepAlive = false }
                if tokens.contains("keep-alive") { keepAlive = true }
            default:
                break
            }
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
