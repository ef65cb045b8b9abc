import Dispatch
import Sockets
import Synchronization

/// Writes request log lines to a descriptor (stderr by default) away from the event loops.
///
/// Lines are batched and written by one background queue, so a burst of requests costs a
/// few `write(2)`s instead of one each; when the descriptor does not keep up (a terminal
/// scrolled back, a pipe nobody reads), lines beyond `maxPendingBytes` are dropped and
/// counted instead of stalling the server.
///
/// ```swift
/// let logWriter = RequestLogWriter()                 // stderr
/// let server = HTTPServer(configuration: configuration, responder: app, log: logWriter.sink)
/// ```
public final class RequestLogWriter: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var dropped = 0
        var scheduled = false
    }

    private let fd: Int32
    private let maxPendingBytes: Int
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "lerix.http.log")

    public init(fd: Int32 = 2, maxPendingBytes: Int = 1 << 20) {
        self.fd = fd
        self.maxPendingBytes = maxPendingBytes
    }

    /// The closure to hand to ``HTTPServer/init(configuration:responder:log:)``.
    public var sink: @Sendable (RequestLogEntry) -> Void {
        { [self] entry in write(entry.line) }
    }

    /// Queues one line (a newline is added).
    public func write(_ line: String) {
        let schedule = state.withLock { state -> Bool in
            if state.pending.count + line.utf8.count + 1 > maxPendingBytes {
                state.dropped += 1
            } else {
                state.pending.append(contentsOf: line.utf8)
                state.pending.append(10)
            }
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if schedule { queue.async { [self] in drain() } }
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
