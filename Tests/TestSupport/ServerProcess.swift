import Foundation

/// The real `lerix-mock` binary run as a child process, for integration and CLI tests.
/// It is found beside the test executable (SwiftPM builds both into the same folder).
///
/// ```swift
/// let server = try ServerProcess.start(["serve", "--port", "0", "--clock", "manual"])
/// defer { server.stop() }
/// let client = try TestHTTPClient(port: server.port)
/// ```
public final class ServerProcess: @unchecked Sendable {
    // Confined to the test that owns it; `process` is thread-safe for terminate/wait.
    public let process: Process
    public let port: Int
    public let firstLine: String
    private let stderrPipe: Pipe
    private let stdoutPipe: Pipe

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The folder holding the built products (the test bundle's own folder).
    public static var productsFolder: URL {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return exe.deletingLastPathComponent()
    }

    public static var binary: URL { productsFolder.appendingPathComponent("lerix-mock") }

    /// Starts `lerix-mock ARGS`, waits for the `listening on http://HOST:PORT` line.
    public static func start(_ arguments: [String], waitForListening: Bool = true) throws -> ServerProcess {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw Failure(description: "could not run \(binary.path): \(error)")
        }
        guard waitForListening else {
            return ServerProcess(process: process, port: 0, firstLine: "", stdout: out, stderr: err)
        }
        let line = readLine(from: out.fileHandleForReading)
        guard let range = line.range(of: "http://"),
            let portText = line[range.upperBound...].split(separator: ":").last,
            let port = Int(portText.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(
                description: "server did not report its port; first line: \(line.debugDescription); stderr: \(errors)"
            )
        }
        return ServerProcess(process: process, port: port, firstLine: line, stdout: out, stderr: err)
    }

    private init(process: Process, port: Int, firstLine: String, stdout: Pipe, stderr: Pipe) {
        self.process = process
        self.port = port
        self.firstLine = firstLine
        self.stdoutPipe = stdout
        self.stderrPipe = stderr
    }

    /// Reads bytes up to the first newline (blocking; the child writes it at once or exits).
    static func readLine(from handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while true {
            let data = handle.readData(ofLength: 1)
            guard let byte = data.first else { break }
            if byte == 10 { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// SIGTERM and wait; returns the exit status. A server that has not exited after
    /// `graceSeconds` is killed and reported as -1, so a stop bug fails a test instead of hanging it.
    @discardableResult
    public func stop(graceSeconds: Double = 15) -> Int32 {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(graceSeconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return -1
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL and wait (crash tests).
    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Everything the process wrote to stderr (call after it exited).
    public func standardError() -> String {
        String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// The rest of stdout (call after it exited).
    public func standardOutput() -> String {
        String(decoding: stdoutPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Runs `lerix-mock ARGS` to completion (in `directory` when given, with `environment` added
    /// to this process's) and returns status, stdout and stderr.
    public static func run(
        _ arguments: [String],
        input: String? = nil,
        in directory: String? = nil,
        environment: [String: String] = [:]
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        let inp = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input == nil ? FileHandle.nullDevice : inp
        try process.run()
        if let input {
            inp.fileHandleForWriting.write(Data(input.utf8))
            try? inp.fileHandleForWriting.close()
        }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: stdoutData, as: UTF8.self),
            String(decoding: stderrData, as: UTF8.self)
        )
    }
}
