import Synchronization

/// The in-memory ``RequestLogSink``: keeps every line, for tests.
///
/// ```swift
/// let recorder = RequestLogRecorder()
/// let server = HTTPServer(configuration: .init(port: 0), responder: app, log: recorder)
/// // ... requests ...
/// recorder.lines   // ["GET /healthz 200 2B 87us"]
/// ```
public final class RequestLogRecorder: RequestLogSink {
    private let recorded = Mutex<[String]>([])

    public init() {}

    /// Every line so far, without its newline, in the order written.
    public var lines: [String] { recorded.withLock { $0 } }

    public func write(lines bytes: UnsafeRawBufferPointer) {
        let lines = bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        recorded.withLock { $0.append(contentsOf: lines) }
    }
}
