import Dispatch
import HTTP

/// Moves a ``ResponseStream``'s bytes onto one HTTP/1.1 connection as they are written,
/// framed as chunks, with a heartbeat when the stream is quiet.
///
/// Bounded twice: the stream itself holds at most its `maxBufferedBytes`, and when the
/// connection's unsent output passes ``maxBacklogBytes`` the reader is too slow and the
/// connection is closed (the application sees the stream end and forgets the client).
///
/// Confined to the connection's loop queue; the stream's wake-up hops there. Debug builds
/// assert it once past the `stopped` guard: the unowned connection may be gone after a stop.
final class StreamPump: @unchecked Sendable {
    enum Framing { case chunked, untilClose }

    /// Unsent output at which a streaming reader counts as too slow.
    static let maxBacklogBytes = 512 << 10

    let stream: ResponseStream
    unowned let connection: Connection
    let framing: Framing
    private var timer: DispatchSourceTimer?
    private var wroteSinceTick = false
    private var stopped = false

    init(stream: ResponseStream, connection: Connection, framing: Framing) {
        self.stream = stream
        self.connection = connection
        self.framing = framing
    }

    func start() {
        let loop = connection.loop
        stream.attach { [weak self] in
            loop.queue.async { [weak self] in self?.pump() }
        }
        let interval = DispatchTimeInterval.nanoseconds(Int(stream.heartbeatInterval.nanosecondsClamped))
        let timer = DispatchSource.makeTimerSource(queue: loop.queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(250))
        timer.setEventHandler { [weak self] in self?.tick() }
        self.timer = timer
        timer.resume()
        stream.finishAfterLifetime(on: loop.queue)
    }

    /// Takes what the stream holds and writes it.
    private func pump() {
        guard !stopped, !connection.isClosed else { return }
        connection.assertOnLoop()
        let (bytes, ending) = stream.take()
        if ending == .overflowed || connection.pendingOutputBytes > Self.maxBacklogBytes {
            connection.close()  // too slow: drop the reader rather than buffer for it
            return
        }
        append(bytes)
        if ending == .finished {
            finish()  // may close (and free) the connection: touch nothing after it
            return
        }
        connection.flushSoon()
    }

    /// Ends the body (graceful stop or the application's `finish`), then the connection.
    func finish() {
        guard !stopped else { return }
        connection.assertOnLoop()
        let (bytes, _) = stream.take()
        append(bytes)
        if framing == .chunked { connection.enqueue { $0.append(contentsOf: HTTPResponseSerializer.lastChunk) } }
        stop()
        connection.closeAfterFlush()  // last: it may close and free the connection
    }

    /// A quiet stream gets the heartbeat, so a peer that vanished makes a write fail.
    private func tick() {
        guard !stopped, !connection.isClosed else { return }
        connection.assertOnLoop()
        if !wroteSinceTick && !stream.heartbeat.isEmpty {
            append(stream.heartbeat)
            connection.flushSoon()
        }
        wroteSinceTick = false
    }

    private func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        wroteSinceTick = true
        switch framing {
        case .chunked: connection.enqueue { HTTPResponseSerializer.appendChunk(bytes, to: &$0) }
        case .untilClose: connection.enqueue { $0.append(contentsOf: bytes) }
        }
    }

    /// The connection is done: the stream ends and its end handlers run.
    func stop() {
        guard !stopped else { return }
        connection.assertOnLoop()
        stopped = true
        timer?.cancel()
        timer = nil
        stream.end()
    }
}
