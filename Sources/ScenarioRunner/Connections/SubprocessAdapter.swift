#if canImport(Glibc)
import Glibc
#endif
import JSON

/// An adapter in another language, run as `/bin/sh -c CMD`, speaking one JSON line per command
/// on stdin and one answer line on stdout (ADAPTER.md). Its stderr passes through.
///
/// ```swift
/// let adapter = try SubprocessAdapter(command: "node sdk-adapter.js")
/// let hello = try adapter.send(["cmd": "hello"])
/// ```
public final class SubprocessAdapter: AdapterConnection {
    private let pid: pid_t
    private let input: Int32
    private let output: Int32
    private var buffer: [UInt8] = []
    private var nextId = 1
    private var closed = false

    public init(command: String) throws(AdapterFailure) {
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw AdapterFailure("cannot create pipes for the adapter") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        for fd in [toChild[0], toChild[1], fromChild[0], fromChild[1]] { posix_spawn_file_actions_addclose(&actions, fd) }
        var child: pid_t = 0
        let argv: [String] = ["/bin/sh", "-c", command]
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        let status = posix_spawn(&child, "/bin/sh", &actions, nil, &cArgs, environ)
        Glibc.close(toChild[0])
        Glibc.close(fromChild[1])
        guard status == 0 else {
            Glibc.close(toChild[1]); Glibc.close(fromChild[0])
            throw AdapterFailure("cannot start adapter `\(command)`: \(String(cString: strerror(status)))")
        }
        signal(SIGPIPE, SIG_IGN)
        pid = child
        input = toChild[1]
        output = fromChild[0]
    }

    deinit { close() }

    public func send(_ command: JSON) throws(AdapterFailure) -> JSON {
        guard !closed else { throw AdapterFailure("the adapter has exited") }
        let id = nextId
        nextId += 1
        var object = command.objectValue ?? JSONObject()
        object["id"] = .number(Double(id))
        var bytes = JSON.object(object).serialized()
        bytes.append(10)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw AdapterFailure("the adapter closed its input (did it crash? see its stderr)") }
            offset += n
        }
        let line = try readLine()
        let answer: JSON
        do {
            answer = try JSON.parse(line)
        } catch {
            throw AdapterFailure("the adapter answered a line that is not JSON (\(error)): \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
        guard answer["id"]?.intValue == id else {
            throw AdapterFailure("the adapter answered id \(answer["id"]?.serializedString ?? "none") to request \(id): answers must come in order")
        }
        return answer
    }

    private func readLine() throws(AdapterFailure) -> [UInt8] {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw AdapterFailure("the adapter exited before answering (see its stderr)") }
            buffer.append(contentsOf: chunk[..<n])
            guard buffer.count < 64 << 20 else { throw AdapterFailure("the adapter sent over 64 MiB without a newline") }
        }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(input)
        Glibc.close(output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }
}
