/// An incremental HTTP/1.1 request parser (RFC 9112): fed bytes, it returns requests.
///
/// Bytes may arrive split at any boundary and several requests may arrive at once
/// (pipelining). The parser copies only what it cannot finish yet (a partial head or
/// chunk line); bodies are copied straight into the request being built. It does no I/O.
///
/// ```swift
/// var parser = HTTPRequestParser()
/// for event in parser.feed(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) {
///     if case .request(let request, let keepAlive) = event { print(request.target, keepAlive) }
/// }
/// ```
///
/// Servers use the pull form ``next(_:)`` to stop at any request (a protocol switch,
/// back-pressure) and keep the unread rest with ``pushBack(_:)``.
public struct HTTPRequestParser: Sendable {
    public var limits: HTTPLimits

    enum State: Sendable, Equatable {
        case head
        case fixedBody(remaining: Int)
        case chunked
        case failed
    }

    /// Bytes received but not yet parsed; they start at `bufferStart`.
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    var state: State = .head
    /// How many bytes of the current head were searched for its end already.
    private var scanned = 0
    /// Offset of the request line's LF in the current head, or -1 while unseen.
    private var lineEnd = -1
    /// The request whose head has been parsed and whose body is arriving.
    var pending = HTTPRequest(method: "", target: "")
    var pendingKeepAlive = true
    /// The last request line and field section that parsed, and what they gave: this
    /// parser's own, or shared by the parsers of one thread (``HTTPHeadMemo``).
    let headMemo: HTTPHeadMemo
    private var chunks = ChunkedBodyDecoder()
    /// What the body being read holds of the server's budget; nil: no budget.
    private var charge: BodyCharge?

    /// - Parameters:
    ///   - bodyBudget: the server-wide budget every body being read is taken from (one body at
    ///     a time per connection, at most ``HTTPLimits/maxBodyBytes``); a body that would pass
    ///     it fails with ``BodyBudget/exhausted`` (503). nil: bounded per connection only.
    ///   - headMemo: the memo of the last head that parsed; share one among parsers that run on
    ///     one thread (a server's event loop) so a connection holds none of its own.
    public init(
        limits: HTTPLimits = HTTPLimits(),
        bodyBudget: BodyBudget? = nil,
        headMemo: HTTPHeadMemo = HTTPHeadMemo()
    ) {
        self.limits = limits
        self.charge = bodyBudget.map(BodyCharge.init(budget:))
        self.headMemo = headMemo
    }

    /// Bytes the body being read holds of the budget (0 without one, or between bodies).
    public var chargedBodyBytes: Int { charge?.bytes ?? 0 }

    /// Drops a body being read and gives its bytes back: the connection closed under it.
    public mutating func abandon() {
        pending.body = []
        charge?.releaseAll()
        state = .failed
    }

    /// Makes room for the body to reach `needed` bytes (at most `cap`), paid from the budget
    /// first: grown by doubling, as Array would, so a body costs a few reservations, and sized
    /// exactly to what was paid. False when the budget is spent.
    private mutating func reserveBody(_ needed: Int, cap: Int) -> Bool {
        guard let charge else { return true }
        guard needed > charge.bytes else { return true }
        let target = min(max(needed, charge.bytes * 2), cap)
        guard charge.grow(to: target) else { return false }
        pending.body.reserveCapacity(target)
        return true
    }

    /// True when no partial request is held: the connection is between requests.
    public var isBetweenRequests: Bool {
        state == .head && buffer.count == bufferStart
    }

    /// True while the head of a request has started arriving but is not complete.
    public var isReadingHead: Bool {
        state == .head && buffer.count > bufferStart
    }

    /// True after a failure: later input is ignored.
    public var hasFailed: Bool { state == .failed }

    /// Parses at most one event from the buffered bytes followed by `input`.
    ///
    /// Returns the event (nil when more input is needed) and how many bytes of `input`
    /// the parser took; the caller passes the rest (`input[consumed...]`) to the next
    /// call. With a nil event every byte was taken. Call again with an empty input after
    /// an event: buffered bytes may hold more requests.
    public mutating func next(_ input: UnsafeRawBufferPointer) -> (event: HTTPParserEvent?, consumed: Int) {
        if state == .failed { return (nil, input.count) }
        if buffer.count == bufferStart {
            let (event, used) = step(input)
            if event == nil && used < input.count {
                buffer.removeAll(keepingCapacity: true)
                bufferStart = 0
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[used...]))
                return (nil, input.count)
            }
            return (event, event == nil ? input.count : used)
        }
        if !input.isEmpty { buffer.append(contentsOf: input) }
        var local: [UInt8] = []
        swap(&local, &buffer)
        let start = bufferStart
        let (event, used) = local.withUnsafeBytes { step(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        swap(&local, &buffer)
        bufferStart += used
        if bufferStart == buffer.count {
            // Keep idle connections small: a large leftover buffer is released.
            if buffer.capacity > 4096 { buffer = [] } else { buffer.removeAll(keepingCapacity: true) }
            bufferStart = 0
        }
        return (event, input.count)
    }

    /// Every event in `bytes` (after whatever was buffered before).
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [HTTPParserEvent] {
        var events: [HTTPParserEvent] = []
        var rest = bytes
        while true {
            let (event, used) = next(rest)
            rest = UnsafeRawBufferPointer(rebasing: rest[used...])
            guard let event else { return events }
            events.append(event)
        }
    }

    /// Every event in `bytes` (after whatever was buffered before).
    public mutating func feed(_ bytes: [UInt8]) -> [HTTPParserEvent] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Returns bytes the caller took back from ``next(_:)`` to the parser's buffer, to be
    /// parsed (before any new input) by the next call.
    public mutating func pushBack(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, state != .failed else { return }
        if bufferStart > 0 {
            buffer.removeFirst(bufferStart)
            bufferStart = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Removes and returns the bytes held but not parsed: what follows the last request
    /// when a connection switches protocol (HTTP/2 after `Upgrade: h2c`).
    public mutating func takeBufferedBytes() -> [UInt8] {
        let rest = Array(buffer[bufferStart...])
        buffer = []
        bufferStart = 0
        return rest
    }

    // MARK: - One step

    private mutating func fail(_ error: HTTPParseError) -> (HTTPParserEvent?, Int) {
        state = .failed
        buffer = []
        bufferStart = 0
        pending.body = []
        charge?.releaseAll()
        return (.failure(error), Int.max)
    }

    private mutating func complete() -> HTTPParserEvent {
        state = .head
        let request = pending
        pending = HTTPRequest(method: "", target: "")
        // The body is the responder's now (answered before the next body is read).
        charge?.releaseAll()
        return .request(request, keepAlive: pendingKeepAlive)
    }

    /// Parses at most one event from `data`. With a nil event, `data[used...]` must be
    /// kept for the next step. A failure reports `Int.max` as used (the caller clamps).
    private mutating func step(_ data: UnsafeRawBufferPointer) -> (HTTPParserEvent?, Int) {
        let result = stepUnclamped(data)
        return (result.0, min(result.1, data.count))
    }

    private mutating func stepUnclamped(_ data: UnsafeRawBufferPointer) -> (HTTPParserEvent?, Int) {
        var pos = 0
        let count = data.count
        while true {
            switch state {
            case .failed:
                return (nil, count)

            case .head:
                if scanned == 0 {
                    // RFC 9112 §2.2: ignore empty lines before a request line.
                    while pos < count && (data[pos] == .cr || data[pos] == .lf) { pos += 1 }
                }
                let base = pos
                let available = count - base
                var i = scanned
                var headEnd = -1
                while let lf = Self.firstLF(data, from: base + i) {
                    i = lf - base
                    if lineEnd < 0 {
                        lineEnd = i
                        if let error = parseRequestLine(data, from: base, to: base + i) { return fail(error) }
                    } else if data[base + i - 1] == .lf
                        || (data[base + i - 1] == .cr && data[base + i - 2] == .lf)
                    {
                        headEnd = i
                        break
                    }
                    i += 1
                }
                if headEnd < 0 {
                    scanned = available
                    if lineEnd < 0 && available > limits.maxTargetBytes + 64 {
                        return fail(unfinishedRequestLineError(data, from: base, to: count))
                    }
                    if lineEnd >= 0 && available - lineEnd - 1 > limits.maxHeaderBytes + 1 {
                        return fail(limits.headerSectionTooLarge)
                    }
                    return (nil, base)
                }
                let fieldsStart = base + lineEnd + 1
                let emptyLineStart = data[base + headEnd - 1] == .cr ? base + headEnd - 1 : base + headEnd
                scanned = 0
                lineEnd = -1
                pos = base + headEnd + 1
                if emptyLineStart - fieldsStart > limits.maxHeaderBytes {
                    return fail(limits.headerSectionTooLarge)
                }
                let framing: Framing
                switch parseFields(data, from: fieldsStart, to: emptyLineStart) {
                case .failure(let error): return fail(error)
                case .success(let value): framing = value
                }
                switch framing.body {
                case .none:
                    return (complete(), pos)
                case .chunked:
                    chunks = ChunkedBodyDecoder()
                    state = .chunked
                case .length(let length):
                    if length > limits.maxBodyBytes {
                        return fail(limits.bodyTooLarge)
                    }
                    // Reserve what has arrived or a modest start, not what the client claims.
                    let start = min(length, max(count - pos, 16 << 10))
                    if charge == nil {
                        pending.body.reserveCapacity(start)
                    } else if !reserveBody(start, cap: length) {
                        return fail(BodyBudget.exhausted)
                    }
                    state = .fixedBody(remaining: length)
                }
                if framing.expectContinue && pos == count {
                    return (.expectContinue, pos)
                }

            case .fixedBody(let remaining):
                let take = min(remaining, count - pos)
                if !reserveBody(pending.body.count + take, cap: pending.body.count + remaining) {
                    return fail(BodyBudget.exhausted)
                }
                if take > 0 {
                    pending.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[pos..<pos + take]))
                    pos += take
                }
                if take == remaining { return (complete(), pos) }
                state = .fixedBody(remaining: remaining - take)
                return (nil, pos)

            case .chunked:
                // At most every byte still to parse is body: paid for before it is copied.
                if !reserveBody(min(pending.body.count + count - pos, limits.maxBodyBytes), cap: limits.maxBodyBytes) {
                    return fail(BodyBudget.exhausted)
                }
                switch chunks.decode(
                    data,
                    from: pos,
                    into: &pending.body,
                    maxBodyBytes: limits.maxBodyBytes,
                    maxTrailerBytes: limits.maxHeaderBytes
                ) {
                case .needMore(let used): return (nil, used)
                case .complete(let used): return (complete(), used)
                case .failure(let error): return fail(error)
                }
            }
        }
    }

    /// Index of the first LF in `data[start...]`, or nil. Eight bytes a step: a head is searched
    /// for line ends twice (its end, then each field), and a loop over single bytes was the
    /// parser's largest cost.
    static func firstLF(_ data: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var i = start
        let count = data.count
        if let base = data.baseAddress {
            while i + 8 <= count {
                // A zero byte of `word ^ LFs` is an LF; the lowest flagged byte is the first one
                // (the borrow that can flag a later byte never reaches an earlier one).
                let word =
                    UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ 0x0A0A_0A0A_0A0A_0A0A
                let zeros = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
                if zeros != 0 { return i + zeros.trailingZeroBitCount / 8 }
                i += 8
            }
        }
        while i < count {
            if data[i] == .lf { return i }
            i += 1
        }
        return nil
    }
}

extension UInt8 {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let sp: UInt8 = 32
    static let htab: UInt8 = 9
    static let colon: UInt8 = 58
    static let comma: UInt8 = 44
    static let semicolon: UInt8 = 59
}
