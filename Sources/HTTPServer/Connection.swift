import Dispatch
import HTTP
import Reactor
import Sockets
import TLS

/// One accepted TCP connection: its socket, its epoll interest, output and timeouts. The
/// protocol spoken on it is its ``ConnectionHandler``; the connection only moves bytes.
///
/// On a server with TLS configured, the first byte decides: `0x16` (a TLS handshake record)
/// makes the connection run through a ``TLSSession`` (its transport), anything else is plain
/// HTTP/1.1 or h2c as before. Handlers never know: they get plaintext in ``ConnectionHandler/received(_:)``
/// and append plaintext to ``output``; the connection encrypts it when it flushes.
///
/// Registered with its loop's ``Reactor``, which calls ``handle(_:)`` when the socket is ready
/// and ``deadlinePassed()`` when a timeout ran out.
///
/// Confined to its loop's queue: every method is called there, so state needs no lock.
///
/// Its stored state is confined to one queue and touched on every request, so each stored property
/// is `@exclusivity(unchecked)`: release builds skip the run-time exclusivity checks there
/// (callgrind: they were a tenth of the instructions of a request) without an unsafe build flag,
/// which SwiftPM refuses in a dependency pinned by version.
final class Connection: ReactorHandler, @unchecked Sendable {
    let fd: Int32
    unowned let loop: EventLoop
    /// The loop's, held here: read on every event, and an unowned reference costs an
    /// atomic retain per read.
    let context: ServerContext
    @exclusivity(unchecked) private(set) var handler: (any ConnectionHandler)?

    /// Bytes waiting for the socket, from `outputOffset` on. Handlers add to it through
    /// ``enqueue(_:)``, which keeps the backlog count true.
    @exclusivity(unchecked) private var output: [UInt8] = []
    @exclusivity(unchecked) private var outputOffset = 0

    /// Open, closing after the flush, lingering, closed: one value (see ``ConnectionLifecycle``).
    @exclusivity(unchecked) private(set) var lifecycle = ConnectionLifecycle()
    var isClosed: Bool { lifecycle.isClosed }
    private var isLingering: Bool { lifecycle.isLingering }
    private static let lingerTime: UInt64 = 2_000_000_000
    /// True while the connection handles a socket event: writes wait for its end.
    @exclusivity(unchecked) private(set) var inEvent = false

    /// What carries the connection's bytes, decided by its first byte.
    enum Transport {
        /// Nothing received yet: a silent new connection gets the header-read timeout, not the
        /// (longer) keep-alive one, so idle sockets opened in bulk are shed quickly.
        case undecided
        case plain
        case tls(TLSSession)
    }
    @exclusivity(unchecked) private(set) var transport = Transport.undecided
    /// The TLS transport, once the first byte said TLS; nil for plain connections.
    var tls: TLSSession? {
        if case .tls(let session) = transport { session } else { nil }
    }
    /// Ciphertext waiting for the socket (TLS only), from `sealedOffset` on.
    @exclusivity(unchecked) private var sealed: [UInt8] = []
    @exclusivity(unchecked) private var sealedOffset = 0

    /// What epoll watches for now, and the wishes it is derived from.
    @exclusivity(unchecked) private var interest: Epoll.Events = []
    @exclusivity(unchecked) private var reading = true
    @exclusivity(unchecked) private var readPaused = false
    @exclusivity(unchecked) private var wantsWrite = false
    /// Reading stops while more than this much output waits for the client, whatever
    /// produced it; it resumes once the backlog is under the low-water mark. Also the most
    /// answer bytes one connection makes per round, so big answers to one client cannot
    /// keep a loop from its other connections for long.
    static let outputHighWater = 256 << 10
    static let outputLowWater = 64 << 10
    /// True from the moment unsent output passes the high-water mark until it drains under
    /// the low-water mark. Handlers stop producing answers while it holds.
    @exclusivity(unchecked) private(set) var isOutputBacklogged = false
    /// The backlog cleared since the handler was last told (see ``ConnectionHandler/outputDrained()``).
    @exclusivity(unchecked) private var backlogCleared = false

    /// Monotonic nanoseconds after which the connection is cut off; 0 for never.
    @exclusivity(unchecked) private(set) var deadline: UInt64 = 0
    @exclusivity(unchecked) private var headStartedAt: UInt64 = 0
    @exclusivity(unchecked) private var lastWriteProgress: UInt64 = 0

    #if DEBUG
    /// The loop's queue for the confinement checks, held strongly: the loop is unowned and
    /// may be gone when a late answer hops to its queue after a stop.
    private let loopQueue: DispatchQueue
    #endif

    init(fd: Int32, loop: EventLoop) {
        self.fd = fd
        self.loop = loop
        self.context = loop.context
        #if DEBUG
        self.loopQueue = loop.queue
        #endif
    }

    /// Registers with the loop's reactor; false when the kernel refused.
    func start() -> Bool {
        handler = HTTP1Handler(connection: self)
        interest = [.readable, .readHangup]
        do {
            try loop.reactor.register(self, fd: fd, interest: interest)
        } catch {
            handler = nil
            lifecycle.closed()
            return false
        }
        updateDeadline(now: Reactor.now())
        return true
    }

    /// Replaces the protocol handler (HTTP/2 taking over) and feeds it `bytes`.
    func switchHandler(to newHandler: any ConnectionHandler, feeding bytes: [UInt8]) {
        handler = newHandler
        if !bytes.isEmpty {
            bytes.withUnsafeBytes { newHandler.received($0) }
        }
    }

    /// Epoll says the socket is ready.
    func handle(_ events: Epoll.Events) {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(loop.queue))
        #endif
        guard !isClosed else { return }
        if events.contains(.error) {
            // A socket error (reset): nothing more can be said on this connection.
            close()
            return
        }
        inEvent = true
        if events.contains(.writable) {
            flushOutput()
            notifyIfDrained()
        }
        if reading && !readPaused && !isOutputBacklogged && !events.isDisjoint(with: [.readable, .readHangup, .hangup])
        {
            readAvailable()
        } else if events.contains(.hangup) {
            // Both directions are gone and nothing is left to read: no one to answer.
            close()
        }
        inEvent = false
        flush()
        updateDeadline(now: Reactor.now())
    }

    // MARK: Reading

    private func readAvailable() {
        let buffer = loop.readBuffer
        while !isClosed && reading && !readPaused && !isOutputBacklogged {
            do {
                switch try Posix.read(fd, into: buffer) {
                case .processed(let n):
                    if isLingering {
                        if case .undecided = transport { transport = .plain }  // no longer fresh
                        continue
                    }
                    let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<n])
                    switch transport {
                    case .plain: handler?.received(bytes)
                    case .tls(let tls): receiveSealed(bytes, tls)
                    case .undecided: startTransport(firstBytes: bytes)
                    }
                    if isClosed { return }
                    // A short read emptied the socket: level-triggered epoll reports more.
                    if n < buffer.count { return }
                case .wouldBlock:
                    return
                case .endOfFile:
                    if isLingering {
                        close()
                        return
                    }
                    reading = false
                    updateInterest()
                    handler?.peerClosed()
                    return
                }
            } catch {
                close()
                return
            }
        }
    }

    /// The first bytes of the connection: a TLS handshake record (content type 22) starts TLS;
    /// anything else is plain HTTP/1.1 or h2c. Then the bytes go where the transport says.
    private func startTransport(firstBytes bytes: UnsafeRawBufferPointer) {
        transport = .plain
        guard let context = self.context.tls, bytes.first == 0x16 else {
            handler?.received(bytes)
            return
        }
        do {
            let session = try context.makeSession()
            transport = .tls(session)
            receiveSealed(bytes, session)
        } catch {
            close()
        }
    }

    /// Ciphertext from the socket: the handshake advances, plaintext goes to the handler.
    private func receiveSealed(_ bytes: UnsafeRawBufferPointer, _ tls: TLSSession) {
        tls.receive(bytes)
        let outcome = tls.readPlaintext(into: loop.plaintextBuffer) { plaintext in
            if !isClosed { handler?.received(plaintext) }
        }
        switch outcome {
        case .needMore:
            break
        case .closed:
            // close_notify: the peer is done sending, as at end of file.
            guard !isClosed, reading else { return }
            reading = false
            updateInterest()
            handler?.peerClosed()
        case .failed:
            // A failed handshake (wrong version, unknown CA on the client side, garbage):
            // OpenSSL queued an alert; send it and end the connection.
            flushOutput()
            close()
        }
    }

    /// Stops reading until ``resumeReading()`` (back-pressure: too many answers pending).
    func pauseReading() {
        guard !readPaused else { return }
        readPaused = true
        updateInterest()
    }

    func resumeReading() {
        guard readPaused else { return }
        readPaused = false
        updateInterest()
    }

    private func updateInterest() {
        guard !isClosed else { return }
        var wanted: Epoll.Events = []
        if reading && !readPaused && !isOutputBacklogged { wanted.formUnion([.readable, .readHangup]) }
        if wantsWrite { wanted.insert(.writable) }
        guard wanted != interest else { return }
        interest = wanted
        do {
            try loop.reactor.modify(fd: fd, interest: wanted)
        } catch {
            close()
        }
    }

    // MARK: Writing

    /// Sends pending output now, unless a socket event is being handled (its end flushes).
    func flushSoon() {
        if !inEvent {
            flush()
            updateDeadline(now: Reactor.now())
        }
    }

    /// Adds bytes for the peer (a handler's only way to write) and re-counts the backlog at
    /// once, so a burst of answers produced without a flush still stops reading.
    func enqueue(_ write: (inout [UInt8]) -> Void) {
        guard !isClosed else { return }
        write(&output)
        updateBacklog()
    }

    /// Unsent bytes: queued and not yet accepted by the socket.
    var pendingOutputBytes: Int { output.count - outputOffset + sealed.count - sealedOffset }

    /// Writes pending output (once per event); waits for writability for the rest.
    func flush() {
        guard !isClosed else { return }
        flushOutput()
        notifyIfDrained()
        while !isClosed && !hasPendingOutput {
            switch lifecycle.outputFlushed(tls: tls != nil, reading: reading) {
            case .none:
                return
            case .sendCloseNotify:
                tls?.close()
                flushOutput()
            case .linger:
                startLingering()
                return
            case .close:
                close()
                return
            }
        }
    }

    private func startLingering() {
        readPaused = false
        isOutputBacklogged = false
        Posix.shutdownWrite(fd)
        deadline = Reactor.now() &+ Self.lingerTime
        updateInterest()
    }

    private func flushOutput() {
        let result: WriteResult
        if let tls {
            if outputOffset < output.count {
                output.withUnsafeBytes { tls.send(UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
                releaseOutputBuffer(&output)
                outputOffset = 0
            }
            tls.drainCiphertext(into: &sealed)
            result = write(&sealed, from: &sealedOffset)
        } else {
            result = write(&output, from: &outputOffset)
        }
        switch result {
        case .failed:
            close()
        case .blocked:
            if !wantsWrite {
                lastWriteProgress = Reactor.now()
                wantsWrite = true
            }
            updateBacklog()
            updateInterest()
        case .done:
            updateBacklog()
            if wantsWrite {
                wantsWrite = false
                updateInterest()
            }
        }
    }

    /// A client that sends but does not read must not grow the output without bound:
    /// reading stops above the high-water mark and resumes under the low-water mark.
    private func updateBacklog() {
        let backlog = pendingOutputBytes
        if !isOutputBacklogged && backlog > Self.outputHighWater {
            isOutputBacklogged = true
            updateInterest()
        } else if isOutputBacklogged && backlog < Self.outputLowWater {
            isOutputBacklogged = false
            backlogCleared = true
            updateInterest()
        }
    }

    /// Tells the handler the backlog cleared, so it produces the answers it held back.
    /// One round per socket event, so a fast reader of big answers cannot hold the loop:
    /// when the socket took the new backlog at once too, the next round waits for the next
    /// writability report (level-triggered, so at once after the other ready sockets).
    private func notifyIfDrained() {
        guard backlogCleared, !isClosed else { return }
        backlogCleared = false
        handler?.outputDrained()
        flushOutput()
        if backlogCleared && !isClosed && !wantsWrite {
            wantsWrite = true
            updateInterest()
        }
    }

    private enum WriteResult {
        case done
        /// The socket took what it could; the rest waits for writability.
        case blocked
        case failed
    }

    /// Writes `buffer[offset...]` to the socket until it is empty or would block. It touches
    /// only its arguments and `lastWriteProgress`, so callers may pass stored properties inout.
    private func write(_ buffer: inout [UInt8], from offset: inout Int) -> WriteResult {
        while offset < buffer.count {
            let result: IOResult
            do {
                let start = offset
                result = try buffer.withUnsafeBytes {
                    try Posix.write(fd, UnsafeRawBufferPointer(rebasing: $0[start...]))
                }
            } catch {
                return .failed
            }
            switch result {
            case .processed(let n):
                offset += n
                lastWriteProgress = Reactor.now()
            case .wouldBlock, .endOfFile:
                // Drop what was sent, so a slow reader does not make the buffer grow forever.
                if offset >= 64 << 10 && offset * 2 >= buffer.count {
                    buffer.removeFirst(offset)
                    offset = 0
                }
                return .blocked
            }
        }
        releaseOutputBuffer(&buffer)
        offset = 0
        return .done
    }

    /// Empties a written buffer, keeping small allocations for the next answer.
    private func releaseOutputBuffer(_ buffer: inout [UInt8]) {
        if buffer.capacity > 16 * 1024 { buffer = [] } else { buffer.removeAll(keepingCapacity: true) }
    }

    var hasPendingOutput: Bool {
        outputOffset < output.count || sealedOffset < sealed.count || (tls?.hasCiphertext ?? false)
    }

    // MARK: Closing

    /// Closes once pending output is written. With `linger`, the peer may still be sending
    /// (a rejected upload): the connection shuts down its side and drains the rest first.
    func closeAfterFlush(linger: Bool = false) {
        guard lifecycle.closeAfterFlush(linger: linger) else { return }  // lingering or gone already
        if !inEvent { flush() }
    }

    /// Closes now, dropping pending output and in-flight requests.
    func close() {
        guard !isClosed else { return }
        lifecycle.closed()
        loop.reactor.deregister(self, fd: fd)
        Posix.close(fd)
        output = []
        outputOffset = 0
        sealed = []
        sealedOffset = 0
        if case .tls = transport { transport = .plain }  // the session goes with the socket
        deadline = 0
        let handler = self.handler
        self.handler = nil
        handler?.connectionClosed()
        loop.connectionEnded()
        context.freedMemory.connectionClosed()
    }

    /// Graceful stop: the handler finishes in-flight requests, then closes.
    func drain() {
        guard !isClosed else { return }
        if isLingering {
            close()
            return
        }
        if let handler { handler.drain() } else { close() }
        if !isClosed { flushSoon() }
    }

    /// Debug builds check that the caller runs on this connection's loop queue: the
    /// confinement the handlers' `@unchecked Sendable` rests on. Release builds pay nothing.
    @inline(__always)
    func assertOnLoop() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(loopQueue))
        #endif
    }

    // MARK: Timeouts

    /// Nothing received yet (see ``Transport/undecided``).
    private var isFresh: Bool {
        if case .undecided = transport { true } else { false }
    }

    /// Recomputes the deadline from what the connection is doing.
    func updateDeadline(now: UInt64) {
        guard !isClosed, !isLingering, let handler else { return }
        if hasPendingOutput {
            deadline = lastWriteProgress &+ context.idleTimeout
            return
        }
        // A TLS handshake under way counts as reading a request head (the slowloris guard).
        let handshaking = tls.map { !$0.isHandshakeComplete } ?? false
        switch handshaking ? .readingHead : handler.activity {
        case .idle:
            headStartedAt = 0
            deadline = now &+ (isFresh ? context.headerReadTimeout : context.idleTimeout)
        case .readingHead:
            if headStartedAt == 0 { headStartedAt = now }
            deadline = headStartedAt &+ context.headerReadTimeout
        case .readingBody:
            headStartedAt = 0
            deadline = now &+ context.idleTimeout
        case .busy:
            headStartedAt = 0
            deadline = 0
        }
        // Progress resets the idle timeout, never this one: a body trickled a byte at a time
        // is cut once the whole request has taken too long.
        if let started = handler.requestStartedAt {
            let whole = started &+ context.requestReadTimeout
            deadline = deadline == 0 ? whole : min(deadline, whole)
        }
    }

    /// The deadline passed: a client stalled before or in a request hears 408 (RFC 9110
    /// §15.5.9) where its protocol has a word for it, then the connection closes.
    func deadlinePassed() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(loop.queue))
        #endif
        if !isLingering, !hasPendingOutput,
            var response = isFresh ? HTTP1Handler.headTimedOut : handler?.timeoutResponse
        {
            context.finalize(&response, for: HTTPRequest(method: "-", target: "-"))
            let bytes = HTTPResponseSerializer.bytes(response, keepAlive: false, date: loop.date.current())
            if let tls {
                // Only once the handshake is done is there a channel to answer on.
                if tls.isHandshakeComplete {
                    output.append(contentsOf: bytes)
                    flushOutput()
                }
            } else {
                _ = try? bytes.withUnsafeBytes { try Posix.write(fd, $0) }
            }
        }
        close()
    }
}
