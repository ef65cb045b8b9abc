import Dispatch
import HTTP
import Sockets

/// One accepted TCP connection: its socket, Dispatch sources, output and timeouts. The
/// protocol spoken on it is its ``ConnectionHandler``; the connection only moves bytes.
///
/// Confined to its loop's queue: every method is called there, so state needs no lock.
final class Connection: @unchecked Sendable {
    let fd: Int32
    unowned let loop: EventLoop
    var context: ServerContext { loop.context }
    private(set) var handler: (any ConnectionHandler)?

    /// Bytes waiting for the socket, from `outputOffset` on. Handlers append to it.
    var output: [UInt8] = []
    private var outputOffset = 0
    private(set) var isClosed = false
    private var closeWhenFlushed = false
    /// True while the connection handles a socket event: writes wait for its end.
    private(set) var inEvent = false

    private var readSource: DispatchSourceRead?
    private var readPaused = false
    private var writeSource: DispatchSourceWrite?
    private var writeArmed = false
    /// Sources not yet cancelled and acknowledged: the fd closes when this reaches 0.
    private var liveSources = 0

    /// Index in `loop.connections`, -1 once removed.
    var slot = -1
    /// Monotonic nanoseconds after which the connection is cut off; 0 for never.
    private(set) var deadline: UInt64 = 0
    private var headStartedAt: UInt64 = 0
    private var lastWriteProgress: UInt64 = 0

    init(fd: Int32, loop: EventLoop) {
        self.fd = fd
        self.loop = loop
    }

    func start() {
        handler = HTTP1Handler(connection: self)
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: loop.queue)
        source.setEventHandler { [unowned self] in self.readable() }
        source.setCancelHandler { [self] in self.sourceCancelled() }
        liveSources += 1
        readSource = source
        source.resume()
        updateDeadline(now: ServerContext.now())
    }

    /// Replaces the protocol handler (HTTP/2 taking over) and feeds it `bytes`.
    func switchHandler(to newHandler: any ConnectionHandler, feeding bytes: [UInt8]) {
        handler = newHandler
        if !bytes.isEmpty {
            bytes.withUnsafeBytes { newHandler.received($0) }
        }
    }

    // MARK: Reading

    private func readable() {
        guard !isClosed else { return }
        inEvent = true
        let buffer = loop.readBuffer
        reading: while !isClosed && !readPaused && readSource != nil {
            do {
                switch try Posix.read(fd, into: buffer) {
                case .processed(let n):
                    handler?.received(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                    // A short read emptied the socket: skip the read that would say EAGAIN.
                    if n < buffer.count { break reading }
                case .wouldBlock:
                    break reading
                case .endOfFile:
                    stopReading()
                    handler?.peerClosed()
                    break reading
                }
            } catch {
                close()
                break reading
            }
        }
        inEvent = false
        flush()
        updateDeadline(now: ServerContext.now())
    }

    /// Stops reading until ``resumeReading()`` (back-pressure: too many answers pending).
    func pauseReading() {
        guard let source = readSource, !readPaused else { return }
        readPaused = true
        source.suspend()
    }

    func resumeReading() {
        guard let source = readSource, readPaused else { return }
        readPaused = false
        source.resume()
    }

    private func stopReading() {
        guard let source = readSource else { return }
        if readPaused {
            readPaused = false
            source.resume()
        }
        source.cancel()
        readSource = nil
    }

    // MARK: Writing

    /// Sends pending output now, unless a socket event is being handled (its end flushes).
    func flushSoon() {
        if !inEvent {
            flush()
            updateDeadline(now: ServerContext.now())
        }
    }

    /// Writes as much pending output as the socket takes; arms the write source for the rest.
    func flush() {
        guard !isClosed else { return }
        while outputOffset < output.count {
            let result: IOResult
            do {
                result = try output.withUnsafeBytes { try Posix.write(fd, UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
            } catch {
                close()
                return
            }
            switch result {
            case .processed(let n):
                outputOffset += n
                lastWriteProgress = ServerContext.now()
            case .wouldBlock, .endOfFile:
                armWriteSource()
                return
            }
        }
        if output.capacity > 16 * 1024 { output = [] } else { output.removeAll(keepingCapacity: true) }
        outputOffset = 0
        disarmWriteSource()
        if closeWhenFlushed { close() }
    }

    var hasPendingOutput: Bool { outputOffset < output.count }

    private func armWriteSource() {
        if !writeArmed { lastWriteProgress = ServerContext.now() }
        if writeSource == nil {
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: loop.queue)
            source.setEventHandler { [unowned self] in
                self.flush()
                self.updateDeadline(now: ServerContext.now())
            }
            source.setCancelHandler { [self] in self.sourceCancelled() }
            liveSources += 1
            writeSource = source
            writeArmed = true
            source.resume()
        } else if !writeArmed {
            writeArmed = true
            writeSource?.resume()
        }
    }

    private func disarmWriteSource() {
        if writeArmed, let source = writeSource {
            writeArmed = false
            source.suspend()
        }
    }

    // MARK: Closing

    /// Closes once pending output is written.
    func closeAfterFlush() {
        closeWhenFlushed = true
        if !inEvent { flush() }
    }

    /// Closes now, dropping pending output and in-flight requests.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        stopReading()
        if let source = writeSource {
            if !writeArmed { source.resume() }
            writeArmed = false
            source.cancel()
            writeSource = nil
        }
        if liveSources == 0 { Posix.close(fd) }
        output = []
        outputOffset = 0
        deadline = 0
        let handler = self.handler
        self.handler = nil
        handler?.connectionClosed()
        loop.remove(self)
    }

    private func sourceCancelled() {
        liveSources -= 1
        if isClosed && liveSources == 0 { Posix.close(fd) }
    }

    /// Graceful stop: the handler finishes in-flight requests, then closes.
    func drain() {
        guard !isClosed else { return }
        if let handler { handler.drain() } else { close() }
        if !isClosed { flushSoon() }
    }

    // MARK: Timeouts

    /// Recomputes the deadline from what the connection is doing.
    func updateDeadline(now: UInt64) {
        guard !isClosed, let handler else { return }
        if hasPendingOutput {
            deadline = lastWriteProgress &+ context.idleTimeout
            return
        }
        switch handler.activity {
        case .idle:
            headStartedAt = 0
            deadline = now &+ context.idleTimeout
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
    }

    /// The deadline passed: a client stalled mid-head hears 408, then the connection closes.
    func timedOut() {
        if !hasPendingOutput, handler?.activity == .readingHead {
            let response = ProblemResponse.make(status: 408, detail: "the request head did not arrive in time")
            let bytes = HTTPResponseSerializer.bytes(response, keepAlive: false)
            _ = try? bytes.withUnsafeBytes { try Posix.write(fd, $0) }
        }
        close()
    }
}
