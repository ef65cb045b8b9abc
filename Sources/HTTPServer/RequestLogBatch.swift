import Dispatch

/// One event loop's request log lines of the current wake-up, handed to the server's
/// ``RequestLogSink`` together once the wake-up's work is done.
///
/// The first line of a wake-up queues a hand-over on the loop's own (serial) queue, which
/// runs after the batch of ready sockets being served: so a line costs its formatting into
/// a reused buffer, and a wake-up one hand-over (one lock, at most one writer wake-up),
/// whatever the number of requests it served.
///
/// Confined to its loop's queue.
final class RequestLogBatch: @unchecked Sendable {
    private let sink: any RequestLogSink
    private let queue: DispatchQueue
    private var pending: [UInt8] = []
    private var handOverQueued = false

    init(sink: any RequestLogSink, queue: DispatchQueue) {
        self.sink = sink
        self.queue = queue
        pending.reserveCapacity(4096)
    }

    func record(_ entry: RequestLogEntry) {
        entry.append(to: &pending)
        guard !handOverQueued else { return }
        handOverQueued = true
        queue.async { [self] in handOver() }
    }

    /// Gives the lines gathered so far to the sink.
    func handOver() {
        handOverQueued = false
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { sink.write(lines: $0) }
        if pending.capacity > 256 << 10 { pending = [] } else { pending.removeAll(keepingCapacity: true) }
    }
}
