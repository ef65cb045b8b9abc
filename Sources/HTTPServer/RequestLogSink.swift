/// Where the server's request log goes: whole lines (each ending in `\n`, see
/// ``RequestLogEntry/append(to:)``), handed over in batches, one per event-loop wake-up.
///
/// Called on an event loop's queue: an implementation must return quickly and never block
/// (``RequestLogWriter`` queues the bytes for a background write). Tests use
/// ``RequestLogRecorder``.
///
/// ```swift
/// let server = HTTPServer(configuration: configuration, responder: app, log: RequestLogWriter())
/// ```
public protocol RequestLogSink: Sendable {
    /// One batch of complete lines; the bytes are valid only during the call.
    func write(lines: UnsafeRawBufferPointer)
}
