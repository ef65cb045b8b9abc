import Dispatch
import Sockets
import Synchronization

/// Writes request log lines to a descriptor (stderr by default) away from the event loops.
///
/// Each event loop hands over the lines of one wake-up at once (``RequestLogSink``); one
/// background queue writes whatever has gathered, so a burst of requests costs a few
/// `write(2)`s instead of one each, and the loops never wait for the descriptor. When it
/// does not keep up (a terminal scrolled back, a pipe nobody reads), lines beyond
/// `maxPendingBytes` are dropped and counted instead of stalling the server.
///
/// ```swift
/// let logWriter = RequestLogWriter()                 // stderr
/// let server = HTTPServer(configuration: configuration, responder: app, log: logWriter)
/// logWriter.write("push delivered")                  // other lines share the same order
/// ```
public final class RequestLogWriter: RequestLogSink {
    private struct State {
        var pending: [UInt8] = []
        var dropped = 0
        var scheduled = false

        /// True when the caller must start a drain (none is scheduled or running).
        mutating func claimDrain() -> Bool {
            if scheduled { return false }
            scheduled = true
            return true
        }
    }

    private let fd: Int32
    private let maxPendingBytes: Int
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "lerix.http.log")

    public init(fd: Int32 = 2, maxPendingBytes: Int = 1 << 20) {
        self.fd = fd
        self.maxPendingBytes = maxPendingBytes
    }

    /// Queues one line (a newline is added).
    public func write(_ line: String) {
        schedule(
            state.withLock { state -> Bool in
                if state.pending.count + line.utf8.count + 1 > maxPendingBytes {
                    state.dropped += 1
                } else {
                    state.pending.append(contentsOf: line.utf8)
                    state.pending.append(10)
                }
                return state.claimDrain()
            }
        )
    }

    /// Queues a batch of whole lines (each with its newline): all of it, or, when it does
    /// not fit, none of it (counted as dropped lines).
    public func write(lines: UnsafeRawBufferPointer) {
        guard !lines.isEmpty else { return }
        schedule(
            state.withLock { state -> Bool in
                if state.pending.count + lines.count > maxPendingBytes {
                    state.dropped += lines.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
                } else {
                    state.pending.append(contentsOf: lines)
                }
                return state.claimDrain()
            }
        )
    }

    private func schedule(_ needed: Bool) {
        if needed { queue.async { [self] in drain() } }
    }

    /// Waits until every queued line is written (tests; before exit).
    public func flush() {
        queue.sync {}
    }

    private func drain() {
        while true {
            var batch: [UInt8] = []
            let dropped = state.withLock { state -> Int in
                swap(&batch, &state.pending)
                let dropped = state.dropped
                state.dropped = 0
                if batch.isEmpty && dropped == 0 { state.scheduled = false }
                return dropped
            }
            if batch.isEmpty && dropped == 0 { return }
            if dropped > 0 {
                batch.append(contentsOf: "(\(dropped) request log lines dropped: the log did not keep up)\n".utf8)
            }
            batch.withUnsafeBytes { _ = Posix.writeAll(fd, $0) }
        }
    }
}
