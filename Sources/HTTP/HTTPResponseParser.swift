/// An incremental HTTP/1.1 response parser (RFC 9112) for a client connection: fed the bytes
/// read from the server, it returns whole responses in pipeline order. It does no I/O.
///
/// The connection tells it about every request it writes (``expectResponse(toHEAD:)``), since
/// a response's framing depends on the request (a response to HEAD has no body), and bytes
/// nobody asked for are an error. Bytes may arrive split at any boundary, and several
/// responses may arrive in one read.
///
/// ```swift
/// var parser = HTTPResponseParser()
/// parser.expectResponse(toHEAD: false)
/// for event in parser.feed(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)) {
///     if case .response(let response) = event { print(response.status, response.keepAlive) }
/// }
/// // the server closed the connection (read returned 0):
/// for event in parser.endOfStream() { … }
/// ```
public struct HTTPResponseParser: Sendable {
    public var limits: HTTPResponseLimits
    /// Keep bytes that arrive with no request announced (for a raw test connection whose
    /// requests are written by hand) instead of failing on them.
    public let holdsUnannouncedResponses: Bool

    enum State: Sendable, Equatable {
        case head
        case fixedBody(remaining: Int)
        case chunked
        case untilClose
        /// After `101 Switching Protocols`: the rest is another protocol's.
        case switched
        case failed
    }

    var state: State = .head
    /// Bytes received but not yet parsed; they start at `bufferStart`.
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    /// How many bytes of the current head were searched for its end already.
    private var scanned = 0
    /// Whether each request written and not yet answered was HEAD, oldest first from `expectedStart`.
    var expected: [Bool] = []
    var expectedStart = 0
    /// The response whose head has been parsed and whose body is arriving.
    var pending = ReceivedResponse(status: 0)
    /// Whether any byte of the response to the oldest waiting request has been taken.
    private var responseStarted = false
    private var chunks = ChunkedBodyDecoder()

    /// - Parameter holdingUnannouncedResponses: bytes that arrive with no request announced
    ///   stay buffered (``takeBufferedBytes()`` returns them) instead of being a failure.
    public init(limits: HTTPResponseLimits = HTTPResponseLimits(), holdingUnannouncedResponses: Bool = false) {
        self.limits = limits
        self.holdsUnannouncedResponses = holdingUnannouncedResponses
    }

    /// Records that one more request was written; its response comes after those of earlier ones.
    public mutating func expectResponse(toHEAD isHEAD: Bool) {
        expected.append(isHEAD)
    }

    /// Requests written whose final response has not completed yet.
    public var outstandingResponses: Int { expected.count - expectedStart }

    /// True when some byte of the next response has arrived (an interim 1xx counts). A
    /// connection that closes then must not resend the request: the server acted on it.
    public var hasPartialResponse: Bool { responseStarted || buffer.count > bufferStart }

    /// True after a failure or the end of the stream: later input is ignored.
    public var hasFailed: Bool { state == .failed }

    /// True when nothing is expected and nothing is buffered: the connection may be reused or closed.
    public var isIdle: Bool { state == .head && outstandingResponses == 0 && buffer.count == bufferStart }

    /// Every event in `bytes` (after whatever was buffered before).
    public mutating func feed(_ bytes: [UInt8]) -> [HTTPResponseParserEvent] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Every event in `input` (after whatever was buffered before). The parser copies only what
    /// it cannot finish yet; bodies go straight into the response being built.
    public mutating func feed(_ input: UnsafeRawBufferPointer) -> [HTTPResponseParserEvent] {
        var events: [HTTPResponseParserEvent] = []
        switch state {
        case .failed:
            return events
        case .switched:
            buffer.append(contentsOf: input)
            return events
        default:
            break
        }
        if buffer.count == bufferStart {
            let used = parse(input, into: &events)
            if used < input.count && state != .failed {
                buffer.removeAll(keepingCapacity: true)
                bufferStart = 0
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[used...]))
            }
            return events
        }
        buffer.append(contentsOf: input)
        var local: [UInt8] = []
        swap(&local, &buffer)
        let start = bufferStart
        let used = local.withUnsafeBytes { parse(UnsafeRawBufferPointer(rebasing: $0[start...]), into: &events) }
        swap(&local, &buffer)
        if state == .failed { return events }
        bufferStart += used
        if bufferStart == buffer.count {
            // Keep idle connections small: a large leftover buffer is released.
            if buffer.capacity > 64 << 10 { buffer = [] } else { buffer.removeAll(keepingCapacity: true) }
            bufferStart = 0
        } else if bufferStart > 16 << 10 && bufferStart * 2 > buffer.count {
            buffer.removeFirst(bufferStart)
            bufferStart = 0
        }
        return events
    }

    /// The server closed the connection (or its TLS session ended): a body delimited by the
    /// close ends here; a response in the middle, or one still expected, is a failure. After
    /// this the parser takes no more input.
    public mutating func endOfStream() -> [HTTPResponseParserEvent] {
        defer { if state != .switched { state = .failed } }
        switch state {
        case .failed, .switched:
            return []
        case .untilClose:
            return [.response(finish(keepAlive: false))]
        case .head where !hasPartialResponse:
            guard outstandingResponses > 0 else { return [] }
            return [
                .failure(
                    HTTPResponseParseError(.closedBeforeResponse, "the server closed the connection before answering")
                )
            ]
        case .head:
            return [
                .failure(
                    HTTPResponseParseError(
                        .truncated,
                        "the server closed the connection in the middle of a response head"
                    )
                )
            ]
        case .fixedBody(let remaining):
            return [
                .failure(
                    HTTPResponseParseError(
                        .truncated,
                        "the server closed the connection \(remaining) bytes before the end of a \(pending.body.count + remaining)-byte body"
                    )
                )
            ]
        case .chunked:
            return [
                .failure(
                    HTTPResponseParseError(
                        .truncated,
                        "the server closed the connection in the middle of a chunked body"
                    )
                )
            ]
        }
    }

    /// Removes and returns the bytes held but not parsed: after `101 Switching Protocols`,
    /// the first bytes of the new protocol.
    public mutating func takeBufferedBytes() -> [UInt8] {
        let rest = Array(buffer[bufferStart...])
        buffer = []
        bufferStart = 0
        return rest
    }

    // MARK: - Parsing

    private mutating func fail(_ error: HTTPResponseParseError, into events: inout [HTTPResponseParserEvent]) -> Int {
        state = .failed
        buffer = []
        bufferStart = 0
        events.append(.failure(error))
        return Int.max
    }

    /// The response being built, completed: the oldest expectation is answered.
    private mutating func finish(keepAlive: Bool) -> ReceivedResponse {
        var response = pending
        response.keepAlive = keepAlive
        pending = ReceivedResponse(status: 0)
        expectedStart += 1
        if expectedStart == expected.count {
            expected.removeAll(keepingCapacity: true)
            expectedStart = 0
        } else if expectedStart > 64 {
            expected.removeFirst(expectedStart)
            expectedStart = 0
        }
        responseStarted = false
        state = .head
        return response
    }

    /// Parses as many events from `data` as it holds; returns how many bytes were used (the
    /// rest must be kept for the next call), or all of them after a failure.
    private mutating func parse(_ data: UnsafeRawBufferPointer, into events: inout [HTTPResponseParserEvent]) -> Int {
        let used = parseUnclamped(data, into: &events)
        return min(used, data.count)
    }

    private mutating func parseUnclamped(
        _ data: UnsafeRawBufferPointer,
        into events: inout [HTTPResponseParserEvent]
    ) -> Int {
        var pos = 0
        let count = data.count
        while true {
            switch state {
            case .failed, .switched:
                return pos

            case .head:
                guard pos < count else { return pos }
                guard outstandingResponses > 0 else {
                    if holdsUnannouncedResponses { return pos }
                    return fail(
                        HTTPResponseParseError(
                            .unexpected,
                            "the server sent bytes no request asked for: \(Self.preview(data, from: pos))"
                        ),
                        into: &events
                    )
                }
                guard let headEnd = findHeadEnd(data, from: pos) else {
                    if count - pos > limits.maxHeadBytes {
                        return fail(headTooLarge, into: &events)
                    }
                    responseStarted = true
                    return pos
                }
                responseStarted = true
                if headEnd.emptyLineStart - pos > limits.maxHeadBytes {
                    return fail(headTooLarge, into: &events)
                }
                let framing: Framing
                switch parseHead(data, from: pos, to: headEnd.emptyLineStart) {
                case .failure(let error): return fail(error, into: &events)
                case .success(let value): framing = value
                }
                pos = headEnd.next
                switch framing.body {
                case .informational:
                    let interim = pending
                    pending = ReceivedResponse(status: 0)
                    events.append(.informational(interim))
                case .switchingProtocols:
                    events.append(.response(finish(keepAlive: false)))
                    state = .switched
                    return pos
                case .none:
                    events.append(.response(finish(keepAlive: framing.keepAlive)))
                case .length(let length):
                    pending.keepAlive = framing.keepAlive
                    pending.body.reserveCapacity(min(length, max(count - pos, 16 << 10)))
                    state = .fixedBody(remaining: length)
                case .chunked:
                    pending.keepAlive = framing.keepAlive
                    chunks = ChunkedBodyDecoder()
                    state = .chunked
                case .untilClose:
                    state = .untilClose
                }

            case .fixedBody(let remaining):
                let take = min(remaining, count - pos)
                if take > 0 {
                    pending.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[pos..<pos + take]))
                    pos += take
                }
                if take < remaining {
                    state = .fixedBody(remaining: remaining - take)
                    return pos
                }
                events.append(.response(finish(keepAlive: pending.keepAlive)))

            case .untilClose:
                if count - pos > limits.maxBodyBytes - pending.body.count {
                    return fail(bodyTooLarge, into: &events)
                }
                pending.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[pos...]))
                return count

            case .chunked:
                switch chunks.decode(
                    data,
                    from: pos,
                    into: &pending.body,
                    maxBodyBytes: limits.maxBodyBytes,
                    maxTrailerBytes: limits.maxHeadBytes
                ) {
                case .needMore(let used):
                    return used
                case .complete(let used):
                    pos = used
                    events.append(.response(finish(keepAlive: pending.keepAlive)))
                case .failure(let error):
                    return fail(
                        HTTPResponseParseError(
                            error.status == 400 ? .malformed : .tooLarge,
                            "the chunked body: " + error.message
                        ),
                        into: &events
                    )
                }
            }
        }
    }

    private var headTooLarge: HTTPResponseParseError {
        HTTPResponseParseError(.tooLarge, "the response head is larger than \(limits.maxHeadBytes) bytes")
    }

    private var bodyTooLarge: HTTPResponseParseError {
        HTTPResponseParseError(.tooLarge, "the body is larger than \(limits.maxBodyBytes) bytes")
    }

    /// Where the head starting at `start` ends: the empty line's first byte and the byte after
    /// it (LF or CRLF line ends), or nil when it has not all arrived. Resumes where the last
    /// search stopped.
    private mutating func findHeadEnd(
        _ data: UnsafeRawBufferPointer,
        from start: Int
    ) -> (emptyLineStart: Int, next: Int)? {
        var i = start + max(scanned, 1)
        while i < data.count {
            if data[i] == .lf {
                if data[i - 1] == .lf {
                    scanned = 0
                    return (i, i + 1)
                }
                if data[i - 1] == .cr && i - 2 >= start && data[i - 2] == .lf {
                    scanned = 0
                    return (i - 1, i + 1)
                }
            }
            i += 1
        }
        scanned = max(data.count - start - 2, 0)
        return nil
    }
}
