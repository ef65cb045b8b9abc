import Synchronization

/// A response body written over time (Server-Sent Events): the application writes, the
/// transport takes the bytes and sends them; either side may end it.
///
/// Bounded: bytes the transport has not taken yet never exceed `maxBufferedBytes`. A write
/// that would pass it ends the stream instead (a reader too slow to keep up is dropped, not
/// buffered for), so a vanished or stalled client costs at most that much memory.
///
/// ```swift
/// let stream = ResponseStream()
/// stream.onEnd { feed.unsubscribe(id) }          // client gone, dropped, or finished
/// reply(.stream(HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"]), stream))
/// stream.write(Array("data: hello\n\n".utf8))   // false once the stream has ended
/// ```
///
/// Thread-safe: writers may call from any thread; the transport calls from its own queue.
public final class ResponseStream: Sendable {
    /// Why a stream ended, for the transport (a dropped reader loses its connection).
    public enum Ending: Sendable, Equatable {
        /// The application called ``finish()``: send what is queued, then end the body.
        case finished
        /// A write would have passed the bound: the reader is too slow; cut it off.
        case overflowed
    }

    public let maxBufferedBytes: Int
    /// Bytes the transport sends after ``heartbeatInterval`` without output (a second at least),
    /// so a peer that vanished is noticed by a failing write (an SSE comment line, for example).
    public let heartbeat: [UInt8]
    public let heartbeatInterval: Duration
    /// When set, the transport finishes the stream this long (wall time, a millisecond at least)
    /// after it starts: a stream a reader can read whole (SSE readers reconnect after their `retry`).
    public let lifetime: Duration?

    private struct State {
        var buffer: [UInt8] = []
        var ending: Ending?
        var ended = false
        var wake: (@Sendable () -> Void)?
        var wakePending = false
        var endHandlers: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())

    public init(
        maxBufferedBytes: Int = 256 << 10,
        heartbeat: [UInt8] = [],
        heartbeatInterval: Duration = .seconds(15),
        lifetime: Duration? = nil
    ) {
        self.maxBufferedBytes = max(1, maxBufferedBytes)
        self.heartbeat = heartbeat
        self.heartbeatInterval = max(.seconds(1), heartbeatInterval)
        self.lifetime = lifetime.map { max(.milliseconds(1), $0) }
    }

    /// Queues `bytes`. False when the stream has ended (client gone, dropped as too slow, or
    /// finished); a write that would pass the bound ends it as ``Ending/overflowed``.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        let (accepted, wake) = state.withLock { s -> (Bool, (@Sendable () -> Void)?) in
            guard !s.ended, s.ending == nil else { return (false, nil) }
            if s.buffer.count + bytes.count > maxBufferedBytes {
                s.ending = .overflowed
                s.buffer = []
            } else {
                s.buffer.append(contentsOf: bytes)
            }
            return (s.ending == nil, takeWake(&s))
        }
        wake?()
        return accepted
    }

    /// Ends the body once what is queued is sent.
    public func finish() {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            guard !s.ended, s.ending == nil else { return nil }
            s.ending = .finished
            return takeWake(&s)
        }
        wake?()
    }

    /// Runs `handler` once when the stream ends for any reason (at once if it has): the
    /// place to unsubscribe. Handlers run on the transport's queue or the caller's.
    public func onEnd(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.ended { return true }
            s.endHandlers.append(handler)
            return false
        }
        if now { handler() }
    }

    /// False once the stream has ended or is ending.
    public var isOpen: Bool { state.withLock { !$0.ended && $0.ending == nil } }

    private func takeWake(_ s: inout State) -> (@Sendable () -> Void)? {
        guard !s.wakePending, let wake = s.wake else { return nil }
        s.wakePending = true
        return wake
    }

    // MARK: Transport side

    /// The transport is ready: `wake` is called (from any thread, at most once per ``take()``)
    /// whenever there is something to take.
    public func attach(wake: @escaping @Sendable () -> Void) {
        let call = state.withLock { s -> Bool in
            s.wake = wake
            return !s.buffer.isEmpty || s.ending != nil ? takeWake(&s) != nil : false
        }
        if call { wake() }
    }

    /// What is queued, and whether the stream is ending; re-arms the wake-up.
    public func take() -> (bytes: [UInt8], ending: Ending?) {
        state.withLock { s in
            s.wakePending = false
            var bytes: [UInt8] = []
            swap(&bytes, &s.buffer)
            return (bytes, s.ending)
        }
    }

    /// The transport is done with the stream (sent to the end, or the connection closed):
    /// later writes return false and the end handlers run, once.
    public func end() {
        let handlers = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.ended else { return [] }
            s.ended = true
            s.buffer = []
            s.wake = nil
            defer { s.endHandlers = [] }
            return s.endHandlers
        }
        for handler in handlers { handler() }
    }
}
