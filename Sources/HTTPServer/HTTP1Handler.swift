import HTTP
import HTTP2

/// HTTP/1.1 on one connection: parses requests (pipelined or not), hands each to the
/// responder, and writes the answers in request order, whenever they arrive.
///
/// Answers given synchronously are serialized at once into the connection's output, so
/// a batch of pipelined requests read in one `read` leaves in one `send`. Late answers
/// hop to the loop queue and are written as soon as every earlier one is.
///
/// Confined to the connection's loop queue; the reply closures it hands out hop there.
///
/// Its stored state is confined to one queue and touched on every request, so each stored property
/// is `@exclusivity(unchecked)`: release builds skip the run-time exclusivity checks there
/// (callgrind: they were a tenth of the instructions of a request) without an unsafe build flag,
/// which SwiftPM refuses in a dependency pinned by version.
final class HTTP1Handler: ConnectionHandler, @unchecked Sendable {
    /// The HTTP/2 client connection preface (RFC 9113 §3.4).
    static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let switchingToH2C: [UInt8] = Array(
        "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n".utf8
    )

    /// A request waiting for its answer, or an answer waiting for earlier ones.
    private struct Slot {
        /// The request without its body (the responder has that).
        var request: HTTPRequest
        var keepAlive: Bool
        var startedAt: UInt64
        var reply: HTTPReply?
    }

    let connection: Connection
    @exclusivity(unchecked) private var parser: HTTPRequestParser
    @exclusivity(unchecked) private var slots: [Slot] = []
    /// Index in `slots` of the oldest unanswered request; its sequence number is `firstSequence`.
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var firstSequence = 0
    @exclusivity(unchecked) private var acceptingRequests = true
    @exclusivity(unchecked) private var draining = false
    @exclusivity(unchecked) private var processing = false
    @exclusivity(unchecked) private var parsingPaused = false
    /// True while the responder runs inside ``dispatch``: an answer given then waits in its
    /// slot until `respond` returns, when the responder no longer holds a copy of it, so
    /// finalize's touches (a 304's Vary) change the answer in place instead of copying it.
    @exclusivity(unchecked) private var responding = false
    /// An answer arrived while `responding` (the request's own, or an earlier one's that the
    /// responder completed meanwhile): dispatch writes once `respond` returns.
    @exclusivity(unchecked) private var answeredWhileResponding = false
    /// How many leading bytes matched the HTTP/2 preface while the protocol is undecided.
    @exclusivity(unchecked) private var prefaceMatched = 0
    @exclusivity(unchecked) private var protocolDecided = false
    private let maxPipelined: Int
    private let logging: Bool
    /// When the first byte of the request being parsed arrived; nil between requests.
    @exclusivity(unchecked) private(set) var requestStartedAt: UInt64?
    /// The streamed body being sent (``HTTPReply/stream``); the connection ends with it.
    @exclusivity(unchecked) private var streaming: StreamPump?

    init(connection: Connection) {
        self.connection = connection
        let configuration = connection.context.configuration
        self.parser = HTTPRequestParser(
            limits: configuration.limits,
            bodyBudget: connection.context.bodyBudget,
            headMemo: connection.loop.headMemo
        )
        self.maxPipelined = max(1, configuration.maxPipelinedRequests)
        self.logging = connection.context.log != nil
    }

    private var pendingCount: Int { slots.count - head }

    var activity: ConnectionActivity {
        if pendingCount > 0 || parsingPaused || streaming != nil { return .busy }
        if !protocolDecided && prefaceMatched > 0 { return .readingHead }
        if parser.isReadingHead { return .readingHead }
        if !parser.isBetweenRequests && !parser.hasFailed { return .readingBody }
        return .idle
    }

    // MARK: Input

    func received(_ bytes: UnsafeRawBufferPointer) {
        guard acceptingRequests else { return }
        connection.assertOnLoop()
        if protocolDecided {
            process(bytes)
        } else {
            detectPreface(bytes)
        }
    }

    /// Withholds bytes while they match the HTTP/2 preface; hands the connection to
    /// HTTP/2 when it completes (see ``HTTP2ConnectionFactory``), else parses them as HTTP/1.
    private func detectPreface(_ bytes: UnsafeRawBufferPointer) {
        let preface = Self.preface
        let before = prefaceMatched
        var i = 0
        while i < bytes.count && prefaceMatched < preface.count && bytes[i] == preface[prefaceMatched] {
            i += 1
            prefaceMatched += 1
        }
        if prefaceMatched < preface.count && i == bytes.count { return }  // still a prefix: wait
        protocolDecided = true
        if prefaceMatched == preface.count, let factory = connection.context.http2 {
            acceptingRequests = false
            var all = Array(preface[0..<before])
            all.append(contentsOf: bytes)
            connection.switchHandler(to: factory.makeHandler(for: connection), feeding: all)
            return
        }
        // Not HTTP/2 (or no HTTP/2 here: the parser answers "PRI * HTTP/2.0" with 505).
        if before > 0 {
            preface[0..<before].withUnsafeBytes { process($0) }
        }
        process(bytes)
    }

    /// A client stalled in a request hears 408 (RFC 9110 §15.5.9) before the connection closes.
    var timeoutResponse: HTTPResponse? {
        switch activity {
        case .readingHead: return Self.headTimedOut
        case .readingBody: return ProblemResponse.make(status: 408, detail: "the request did not arrive in time")
        case .idle, .busy: return nil
        }
    }

    static let headTimedOut = ProblemResponse.make(status: 408, detail: "the request head did not arrive in time")

    private func process(_ bytes: UnsafeRawBufferPointer) {
        processing = true
        defer {
            processing = false
            // A request still arriving is timed from the read that brought its first byte.
            if parsingPaused || parser.isBetweenRequests || parser.hasFailed {
                requestStartedAt = nil
            } else if requestStartedAt == nil {
                requestStartedAt = ServerContext.now()
            }
        }
        var rest = bytes
        while acceptingRequests {
            // Too many answers owed, or too many bytes of answers unsent: hold the rest
            // until the client catches up (answers given at once count like late ones).
            if pendingCount >= maxPipelined || connection.isOutputBacklogged {
                parser.pushBack(rest)
                parsingPaused = true
                connection.pauseReading()
                return
            }
            let (event, used) = parser.next(rest)
            rest = UnsafeRawBufferPointer(rebasing: rest[used...])
            guard let event else { return }
            switch event {
            case .request(let request, let keepAlive):
                requestStartedAt = nil
                dispatch(request, keepAlive: keepAlive, rest: &rest)
            case .expectContinue:
                // Interim answers must not overtake earlier final ones.
                if pendingCount == 0 {
                    connection.enqueue { $0.append(contentsOf: HTTPResponseSerializer.continueResponse) }
                }
            case .failure(let error):
                acceptingRequests = false
                let request = HTTPRequest(method: "-", target: "-")
                slots.append(
                    Slot(
                        request: request,
                        keepAlive: false,
                        startedAt: logging ? ServerContext.now() : 0,
                        reply: .response(ProblemResponse.make(error))
                    )
                )
                writeReady()
            }
        }
    }

    private func dispatch(_ request: HTTPRequest, keepAlive: Bool, rest: inout UnsafeRawBufferPointer) {
        // h2c is cleartext only: over TLS the upgrade is ignored (ALPN is the way to h2 there).
        if pendingCount == 0, connection.tls == nil, let factory = connection.context.http2,
            let settings = Self.h2cUpgradeSettings(request)
        {
            acceptingRequests = false
            connection.enqueue { $0.append(contentsOf: Self.switchingToH2C) }
            var leftover = parser.takeBufferedBytes()
            leftover.append(contentsOf: rest)
            rest = UnsafeRawBufferPointer(start: nil, count: 0)
            let handler = factory.makeUpgradedHandler(for: connection, request: request, settings: settings)
            connection.switchHandler(to: handler, feeding: leftover)
            return
        }
        if !keepAlive { acceptingRequests = false }
        let sequence = firstSequence + pendingCount
        var stored = request
        stored.body = []
        slots.append(
            Slot(request: stored, keepAlive: keepAlive, startedAt: logging ? ServerContext.now() : 0, reply: nil)
        )
        let loop = connection.loop
        responding = true
        connection.context.responder.respond(to: request) { [self] reply in
            if loop.isCurrent {
                self.deliver(reply, sequence: sequence)
            } else {
                loop.runOnLoop { self.deliver(reply, sequence: sequence) }
            }
        }
        responding = false
        loop.responded()
        if answeredWhileResponding {
            answeredWhileResponding = false
            writeReady()
            connection.flushSoon()
        }
    }

    /// The `HTTP2-Settings` value of an `Upgrade: h2c` request, else nil.
    static func h2cUpgradeSettings(_ request: HTTPRequest) -> String? {
        guard request.version == .http1_1, let settings = request.headers["HTTP2-Settings"],
            request.headers.containsToken("h2c", in: "Upgrade"),
            request.headers.values("HTTP2-Settings").count == 1,
            HTTP2ServerSession.acceptsUpgradeSettings(settings)  // else answer as HTTP/1.1 (RFC 9113 §3.2 of 7540)
        else { return nil }
        return settings
    }

    // MARK: Output

    /// Takes the answer to request `sequence`; writes it and any later ones it unblocks.
    private func deliver(_ reply: HTTPReply, sequence: Int) {
        guard !connection.isClosed else { return }
        connection.assertOnLoop()
        let index = head + (sequence - firstSequence)
        guard index >= head, index < slots.count, slots[index].reply == nil else { return }
        slots[index].reply = reply
        if responding {
            answeredWhileResponding = true  // dispatch writes once the responder let go of its copy
            return
        }
        writeReady()
        connection.flushSoon()
    }

    /// Serializes every answer at the front of the queue, in order.
    private func writeReady() {
        while head < slots.count, slots[head].reply != nil {
            // Moved out of the slot, not copied: the answer's fields stay uniquely owned, so
            // finalize's touches (a 304's Vary, gzip) do not copy them.
            var taken: HTTPReply?
            swap(&taken, &slots[head].reply)
            guard let reply = consume taken else { break }
            let slot = slots[head]
            head += 1
            firstSequence += 1
            switch consume reply {
            case .close:
                log(slot, status: nil, bytes: 0)
                connection.close()
                return
            case .stream(var streamHead, let stream):
                connection.context.finalize(&streamHead, for: slot.request)
                streamHead.body = []
                let date = connection.loop.date.current()
                connection.enqueue {
                    HTTPResponseSerializer.writeStreamHead(
                        streamHead,
                        to: &$0,
                        requestVersion: slot.request.version,
                        date: date
                    )
                }
                if logging { log(slot, status: streamHead.status, bytes: 0) }
                // Nothing is answered after a stream: the connection ends with it.
                acceptingRequests = false
                slots.removeAll()
                head = 0
                startStreaming(
                    stream,
                    headOnly: slot.request.method == "HEAD",
                    chunked: slot.request.version != .http1_0
                )
                return
            case .response(var response):
                connection.context.finalize(&response, for: slot.request)
                let headOnly = slot.request.method == "HEAD"
                let date = connection.loop.date.current()
                connection.enqueue {
                    HTTPResponseSerializer.write(
                        response,
                        to: &$0,
                        keepAlive: slot.keepAlive,
                        requestVersion: slot.request.version,
                        headOnly: headOnly,
                        date: date
                    )
                }
                if logging { log(slot, status: response.status, bytes: headOnly ? 0 : response.body.count) }
                if !slot.keepAlive {
                    slots.removeAll()
                    head = 0
                    // After a rejected request the client may still be sending (a body over
                    // the limit): let it finish rather than reset the answer away.
                    connection.closeAfterFlush(linger: parser.hasFailed)
                    return
                }
            }
        }
        slots.dropConsumedPrefix(&head, threshold: 32)
        resumeParsingIfPossible()
        if draining && pendingCount == 0 { connection.closeAfterFlush() }
    }

    /// Parses the requests held back by a pause once both reasons for it are gone.
    private func resumeParsingIfPossible() {
        guard parsingPaused, !processing, pendingCount <= maxPipelined / 2, !connection.isOutputBacklogged else {
            return
        }
        parsingPaused = false
        process(UnsafeRawBufferPointer(start: nil, count: 0))
        if !parsingPaused { connection.resumeReading() }
    }

    func outputDrained() {
        connection.assertOnLoop()
        resumeParsingIfPossible()
    }

    private func log(_ slot: Slot, status: Int?, bytes: Int) {
        guard let batch = connection.loop.requestLog else { return }
        let elapsed = ServerContext.now() &- slot.startedAt
        batch.record(
            RequestLogEntry(
                method: slot.request.method,
                target: slot.request.target,
                status: status,
                bytes: bytes,
                microseconds: Int(elapsed / 1000),
                version: slot.request.version
            )
        )
    }

    // MARK: Ending

    func peerClosed() {
        connection.assertOnLoop()
        acceptingRequests = false
        // A stream's reader that hangs up is gone: nobody reads the rest.
        if streaming != nil {
            connection.close()
            return
        }
        endAfterPending()
    }

    func drain() {
        connection.assertOnLoop()
        draining = true
        acceptingRequests = false
        if let streaming {
            streaming.finish()
            return
        }
        endAfterPending()
    }

    /// Closes once the answers already owed are written (the last one says `Connection: close`).
    private func endAfterPending() {
        if pendingCount == 0 {
            connection.closeAfterFlush()
        } else {
            slots[slots.count - 1].keepAlive = false
        }
    }

    func connectionClosed() {
        connection.assertOnLoop()
        acceptingRequests = false
        parser.abandon()  // an unfinished body gives its bytes back to the server's budget now
        slots = []
        head = 0
        streaming?.stop()
        streaming = nil
    }

    // MARK: Streams

    private func startStreaming(_ stream: ResponseStream, headOnly: Bool, chunked: Bool) {
        guard !headOnly else {
            stream.end()
            connection.closeAfterFlush()
            return
        }
        let framing: StreamPump.Framing = chunked ? .chunked : .untilClose
        let pump = StreamPump(stream: stream, connection: connection, framing: framing)
        streaming = pump
        pump.start()
    }
}
