import Foundation
import HTTP
import JSON
import Synchronization

/// Writes every response a ``TestHTTPClient`` receives, with the request when it is known,
/// as one JSON line to `$LERIX_HTTPLINT_DIR/exchanges-<pid>.jsonl`, so that `make test` can
/// lint them all with httplint afterwards (`Tests/HTTPLint/httplint_recorded.py`). Without the
/// variable it does nothing.
///
/// ```sh
/// LERIX_HTTPLINT_DIR=.build/httplint swift test --skip-build --filter IntegrationTests
/// ```
enum ExchangeRecorder {
    private static let file: Mutex<FileHandle?> = Mutex(open())

    private static func open() -> FileHandle? {
        guard let directory = ProcessInfo.processInfo.environment["LERIX_HTTPLINT_DIR"], !directory.isEmpty else {
            return nil
        }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/exchanges-\(ProcessInfo.processInfo.processIdentifier).jsonl"
        guard FileManager.default.createFile(atPath: path, contents: nil) else { return nil }
        return FileHandle(forWritingAtPath: path)
    }

    static func record(request: HTTPRequest?, statusLine: String, headers: HTTPHeaders, body: [UInt8]) {
        file.withLock { handle in
            guard let handle else { return }
            let requestJSON: JSON =
                request.map { request in
                    .object([
                        ("method", .string(request.method)), ("target", .string(request.target)),
                        ("headers", fields(request.headers)),
                    ])
                } ?? .null
            let line: JSON = .object([
                ("request", requestJSON), ("status_line", .string(statusLine)), ("headers", fields(headers)),
                ("body", .string(Data(body).base64EncodedString())),
            ])
            handle.seekToEndOfFile()
            handle.write(Data(line.serialized() + [0x0A]))
        }
    }

    private static func fields(_ headers: HTTPHeaders) -> JSON {
        .array(headers.map { JSON.array([.string($0.name), .string($0.value)]) })
    }
}
