import Adapter
import Foundation
import JSON
import LerixSDK
import TestSupport

/// `lerix-mock adapter` as a child process: one JSON line in, one line back.
final class AdapterProcess {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    private var nextID = 0

    /// - Parameter launcher: a program and arguments that run the binary (given as their last
    ///   argument) on the test's behalf, e.g. in a private mount namespace; none by default.
    init(_ arguments: [String], launcher: [String] = []) throws {
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(launcher.dropFirst()) + ["adapter", "--quiet"] + arguments
        } else {
            process.executableURL = ServerProcess.binary
            process.arguments = ["adapter", "--quiet"] + arguments
        }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit { stop() }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Sends one command (an `id` is added) and returns the answer, or null if the adapter died.
    @discardableResult
    func send(_ command: String, _ fields: [(String, JSON)] = []) -> JSON {
        nextID += 1
        var object = JSONObject([("id", .number(Double(nextID))), ("cmd", .string(command))])
        for (k, v) in fields { object[k] = v }
        return sendLine(JSON.object(object).serializedString)
    }

    func sendLine(_ line: String) -> JSON {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let text = buffer[..<newline]
                buffer.removeSubrange(...newline)
                return (try? JSON.parse(Array(text))) ?? .null
            }
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { return .null }
            buffer.append(contentsOf: data)
        }
    }
}

/// Blocking admin calls to the real server through the adapter's own HTTP client.
struct AdminClient {
    let baseURL: String
    let network = HTTPClientNetwork()

    func call(_ method: String, _ path: String, _ body: JSON? = nil) -> (status: Int, json: JSON) {
        let result = Locked<TransportResult?>(nil)
        let headers: [(String, String)] = body == nil ? [] : [("Content-Type", "application/json")]
        network.send(
            TransportRequest(method: method, url: baseURL + path, headers: headers, body: body?.serialized() ?? [])
        ) {
            outcome in result.withLock { $0 = outcome }
        }
        network.runUntilIdle()
        switch result.withLock({ $0 }) {
        case .success(let response)?:
            return (response.status, (try? JSON.parse(response.body)) ?? .null)
        default:
            return (0, .null)
        }
    }
}
