import AdapterProtocol
import JSON
import POSIX

/// An adapter in another language, run as `/bin/sh -c CMD` in its own process group, speaking
/// one JSON line per command on stdin and one answer line on stdout (ADAPTER.md).
///
/// The runner never hangs on it and never guesses: each command has a deadline of wall time
/// (``Options/commandTimeout``); an adapter that misses it, exits, answers a line that is not a
/// JSON object, or answers another id is stopped (its whole process group), and the failure
/// names the command, the device, and the last lines the adapter wrote to stderr. Its stderr
/// still passes through to the runner's.
///
/// ```swift
/// let adapter = try SubprocessAdapter(command: "node sdk-adapter.js", options: .init(commandTimeout: 5))
/// let hello = try adapter.send(["cmd": "hello"])
/// ```
public final class SubprocessAdapter: AdapterConnection {
    public struct Options: Sendable {
        /// Seconds of wall time an answer may take.
        public var commandTimeout: Double
        /// Seconds of wall time the adapter has to exit by itself once its stdin ends, before it
        /// is killed with its group: the lifecycle's 2 s (docs/ADAPTER.md), which `adapter-check`
        /// checks (`--exit-timeout`). A wall-clock promise about another process: on a loaded
        /// machine its exit may be scheduled later, so a run there may give it more.
        public var exitTimeout: Double
        /// How many of the adapter's last stderr lines a failure quotes.
        public var stderrLines: Int
        /// Copy the adapter's stderr to the runner's as it arrives.
        public var passStderrThrough: Bool
        /// Where passed-through stderr goes; nil: the runner's stderr (tests catch it here).
        public var stderrSink: (@Sendable ([UInt8]) -> Void)?

        /// The lifecycle's promise (docs/ADAPTER.md): an adapter exits within 2 s of its stdin's end.
        public static let documentedExitTimeout: Double = 2

        public init(
            commandTimeout: Double = 5,
            exitTimeout: Double = Self.documentedExitTimeout,
            stderrLines: Int = 12,
            passStderrThrough: Bool = true,
            stderrSink: (@Sendable ([UInt8]) -> Void)? = nil
        ) {
            self.commandTimeout = commandTimeout
            self.exitTimeout = exitTimeout
            self.stderrLines = stderrLines
            self.passStderrThrough = passStderrThrough
            self.stderrSink = stderrSink
        }
    }

    public let command: String
    let options: Options
    private let pid: Int32
    private var input: Int32
    private let output: Int32
    private var errors: Int32
    private var answers = AdapterLineReader()
    private var stderrTail = StderrTail()
    /// The id of the last request: each is drawn at random, so only an adapter that read the
    /// request can echo it (one that writes answers ahead never passes).
    private var lastId = 0
    /// Why the adapter can take no more commands, once it cannot.
    private var stopped: String?
    private var reaped = false

    public init(command: String, options: Options = Options()) throws(AdapterFailure) {
        self.command = command
        self.options = options
        // Its own process group: a hung adapter is stopped with whatever it started (sh, node, …).
        let child: Posix.Child
        do {
            child = try Posix.spawnShell(command)
        } catch {
            throw AdapterFailure("cannot start adapter `\(command)`: \(error)")
        }
        pid = child.pid
        input = child.input
        output = child.output
        errors = child.errors
        // Non-blocking both ways: a write to an adapter that stopped reading waits in poll,
        // under the command's deadline, never in write(2).
        for fd in [input, output, errors] { try? Posix.setNonBlocking(fd) }
    }

    deinit { close() }

    public func send(_ command: JSON) throws(AdapterFailure) -> JSON {
        let what = Self.describe(command)
        if let stopped { throw AdapterFailure("cannot send \(what): \(stopped)") }
        let id = freshId()
        var object = command.objectValue ?? JSONObject()
        object["id"] = .number(Double(id))
        var bytes = JSON.object(object).serialized()
        bytes.append(10)
        let line = try exchange(bytes, for: what)
        let answer: JSON
        do {
            answer = try JSON.parse(line)
        } catch {
            throw fail(what, "the adapter answered a line that is not JSON (\(error)): \(Self.quote(line))")
        }
        guard answer.objectValue != nil else {
            throw fail(
                what,
                "the adapter answered a JSON \(answer.typeName), not an object with \"id\" and \"ok\": \(Self.quote(line))"
            )
        }
        guard answer["id"]?.intValue == id else {
            throw fail(
                what,
                "the adapter answered id \(answer["id"]?.serializedString ?? "none") to request \(id): "
                    + "answers come one per request, in order, echoing its id"
            )
        }
        guard answer["ok"]?.boolValue != nil else {
            throw fail(what, "the adapter's answer has no boolean \"ok\": \(Self.quote(line))")
        }
        return answer
    }

    /// Writes `line` exactly as given (a conformance check's malformed request) and returns the
    /// one answer line, parsed, without checking its id: the caller judges the answer.
    public func exchange(rawLine line: String, describing what: String) throws(AdapterFailure) -> JSON {
        if let stopped { throw AdapterFailure("cannot send \(what): \(stopped)") }
        var bytes = Array(line.utf8)
        bytes.append(10)
        let answer = try exchange(bytes, for: what)
        do {
            return try JSON.parse(answer)
        } catch {
            throw fail(what, "the adapter answered a line that is not JSON (\(error)): \(Self.quote(answer))")
        }
    }

    /// Closes stdin and reports whether the adapter exited by itself within
    /// ``Options/exitTimeout`` (else it is killed), as the lifecycle asks.
    public func closeAndWaitForExit() -> Bool {
        guard stopped != "closed" else { return reaped }
        Posix.close(input)
        input = -1
        let exited = waitForExit(seconds: options.exitTimeout) != nil
        close()
        return exited
    }

    /// `launch` for device 'phone': the words a failure starts with.
    static func describe(_ command: JSON) -> String {
        let name = command["cmd"]?.stringValue ?? "?"
        guard let device = command["device"]?.stringValue else { return "`\(name)`" }
        return "`\(name)` for device '\(device)'"
    }

    private static func quote(_ line: [UInt8]) -> String {
        let text = String(decoding: line.prefix(200), as: UTF8.self)
        return line.count > 200 ? text + "…" : text
    }

    /// Stops the adapter and explains why, with its last stderr lines; later sends are refused.
    private func fail(_ what: String, _ reason: String) -> AdapterFailure {
        let exit = stop()
        var message = "adapter `\(command)`, \(what): \(reason)"
        if let exit { message += " (\(exit))" }
        let tail = stderrTail.lines(last: options.stderrLines)
        message +=
            tail.isEmpty
            ? "; it wrote nothing to stderr"
            : "; its last stderr lines:\n" + tail.map { "    " + $0 }.joined(separator: "\n")
        stopped = "the adapter stopped after an earlier failure (\(reason))"
        return AdapterFailure(message)
    }

    /// A request id unlike the last one, that the adapter cannot know before reading it.
    private func freshId() -> Int {
        var id: Int
        repeat { id = Int.random(in: 1...Int(Int32.max)) } while id == lastId
        lastId = id
        return id
    }

    /// Writes one request line and reads one answer line, both within one deadline of
    /// `--adapter-timeout`: stdout and stderr are read all along, so an adapter that stops
    /// reading its stdin, never answers, or floods either pipe is stopped in time. An answer
    /// that is already waiting before the request is written was not an answer to it.
    private func exchange(_ bytes: [UInt8], for what: String) throws(AdapterFailure) -> [UInt8] {
        let deadline = Posix.monotonicMilliseconds() + Int64(max(1, (options.commandTimeout * 1000).rounded(.up)))
        if let ahead = try answerWrittenAhead(for: what) {
            throw fail(
                what,
                "the adapter wrote \(Self.quote(ahead)) before the request was sent: an answer comes after its request, "
                    + "echoing the id it carries"
            )
        }
        var written = 0
        while true {
            if written == bytes.count, let line = try nextAnswerLine(for: what) { return line }
            let now = Posix.monotonicMilliseconds()
            guard now < deadline else {
                throw fail(
                    what,
                    written < bytes.count
                        ? "the adapter did not read the request within \(Self.seconds(options.commandTimeout)) "
                            + "(\(written) of its \(bytes.count) bytes taken; it stopped reading stdin; the deadline is "
                            + "`--adapter-timeout`); the adapter was stopped"
                        : "no answer within \(Self.seconds(options.commandTimeout)) (the deadline is `--adapter-timeout`); the adapter was stopped"
                )
            }
            let ready: [Bool]
            do {
                ready = try Posix.poll(
                    [(output, .readable), (errors, .readable), (written < bytes.count ? input : -1, .writable)],
                    timeoutMilliseconds: Int(min(1_000, deadline - now))
                )
            } catch {
                throw fail(what, "cannot wait for the adapter: \(error)")
            }
            if ready[1] { drainErrors() }
            if ready[2] {
                do {
                    let result = try bytes[written...].withUnsafeBytes { try Posix.writeSome(input, $0) }
                    if case .processed(let n) = result { written += n }
                } catch {
                    throw fail(what, "the adapter closed its input before taking the request")
                }
            }
            if ready[0] { try readAnswers(for: what) }
        }
    }

    /// What the adapter wrote to stdout while no request was waiting for an answer, if anything.
    private func answerWrittenAhead(for what: String) throws(AdapterFailure) -> [UInt8]? {
        if answers.pendingCount == 0, (try? Posix.poll(output, for: .readable, timeoutMilliseconds: 0)) == true {
            try readAnswers(for: what)
        }
        return answers.pendingCount > 0 ? Array(answers.pending.prefix(200)) : nil
    }

    /// Reads what stdout holds now (one chunk) into the line reader.
    private func readAnswers(for what: String) throws(AdapterFailure) {
        let result: IOResult
        do {
            result = try readBuffer.withUnsafeMutableBytes { try Posix.read(output, into: $0) }
        } catch {
            throw fail(what, "cannot read the adapter's stdout: \(error)")
        }
        switch result {
        case .processed(let n): answers.append(readBuffer[..<n])
        case .wouldBlock: return
        case .endOfFile: throw fail(what, "the adapter exited before answering")
        }
    }

    private func nextAnswerLine(for what: String) throws(AdapterFailure) -> [UInt8]? {
        do {
            return try answers.nextLine()
        } catch {
            throw fail(what, "the adapter sent over \(error.limit >> 20) MiB without a newline")
        }
    }

    /// Takes what the adapter wrote to stderr so far, at most ``stderrChunk`` bytes a call
    /// (never blocks, never loops until the pipe is empty: a flood cannot hold the runner past
    /// a deadline), keeps its last lines and passes it through, up to ``stderrPassThroughLimit``.
    private func drainErrors() {
        guard errors >= 0 else { return }
        let result = (try? readBuffer.withUnsafeMutableBytes { try Posix.read(errors, into: $0) }) ?? .endOfFile
        switch result {
        case .processed(let n):
            let bytes = readBuffer[..<n]
            stderrTail.append(bytes)
            passThrough(bytes)
        case .wouldBlock:
            return
        case .endOfFile:  // the adapter closed stderr (it exited)
            Posix.close(errors)
            errors = -1
        }
    }

    /// Most stderr bytes taken per read.
    static let stderrChunk = 65_536
    /// Where stdout and stderr are read into, one read at a time: made once per adapter, as
    /// zeroing a fresh 64 KiB for every read was a fifth of the runner's work for a web history.
    private var readBuffer = [UInt8](repeating: 0, count: stderrChunk)
    /// Most stderr bytes of one adapter process copied to the runner's; the rest is counted.
    static let stderrPassThroughLimit = 1 << 20

    private var passedThrough = 0
    private var stderrCarry: [UInt8] = []

    /// The last bytes of `bytes` when they start a UTF-8 sequence that has not ended yet.
    static func unfinishedUTF8Suffix(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        for back in 1...min(3, bytes.count) {
            let byte = bytes[bytes.count - back]
            guard byte & 0xC0 == 0x80 else {
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return length > back ? Array(bytes.suffix(back)) : []
            }
        }
        return []
    }

    private func passThrough(_ bytes: ArraySlice<UInt8>) {
        guard options.passStderrThrough, passedThrough <= Self.stderrPassThroughLimit else { return }
        let room = Self.stderrPassThroughLimit - passedThrough
        passedThrough += bytes.count
        var shown = Array(bytes.prefix(room))
        if bytes.count > room {
            shown += Array(
                "\n[lerix-mock: this adapter wrote over \(Self.stderrPassThroughLimit >> 20) MiB to stderr; the rest is not shown]\n"
                    .utf8
            )
        }
        // Shown as text through SafeText (no raw ESC, BEL or CR on the terminal); a character
        // split between two reads waits for its end.
        shown = stderrCarry + shown
        stderrCarry = Self.unfinishedUTF8Suffix(shown)
        shown.removeLast(stderrCarry.count)
        let safe = Array(SafeText.terminal(String(decoding: shown, as: UTF8.self)).utf8)
        if let sink = options.stderrSink { sink(safe) } else { safe.withUnsafeBytes { _ = Posix.writeAll(2, $0) } }
    }

    /// "2 s", "0.5 s": a duration as failures and check names show it.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// Ends the process group now (its stderr drained first) and says how it ended.
    @discardableResult
    private func stop() -> String? {
        guard !reaped else { return nil }
        if let status = waitForExit(seconds: 0) { return status }
        Posix.killGroup(pid)
        return waitForExit(seconds: 2)
    }

    /// Reaps the adapter if it exits within `seconds`; how it ended, or nil.
    private func waitForExit(seconds: Double) -> String? {
        let deadline = Posix.monotonicMilliseconds() + Int64(seconds * 1000)
        while true {
            switch Posix.reap(pid) {
            case .unknown?:  // not ours to wait for any more
                reaped = true
                return nil
            case let exit?:
                reaped = true
                drainErrors()
                return exit.description
            case nil:
                break
            }
            guard Posix.monotonicMilliseconds() < deadline else { return nil }
            drainErrors()
            Posix.sleep(milliseconds: 5)
        }
    }

    /// Ends the adapter: stdin closes (its cue to exit); one that lingers past
    /// ``Options/exitTimeout`` is killed with its process group.
    public func close() {
        guard stopped != "closed" else { return }
        stopped = "closed"
        if input >= 0 { Posix.close(input) }
        if !reaped, waitForExit(seconds: options.exitTimeout) == nil, !reaped {
            Posix.killGroup(pid)
            _ = waitForExit(seconds: 2)
        }
        drainErrors()
        Posix.close(output)
        if errors >= 0 { Posix.close(errors) }
    }
}

/// The last lines an adapter wrote to stderr, bounded: at most ``keptLines`` lines of at most
/// ``lineBytes`` bytes each, and the unfinished line's last ``partialBytes``. Linear in what it
/// is fed (each byte is looked at once), however the bytes are split.
struct StderrTail {
    static let keptLines = 200
    static let lineBytes = 500
    static let partialBytes = 4_096

    /// A ring of the last lines; `next` is where the next one goes.
    private var lines: [String] = []
    private var next = 0
    private var partial: [UInt8] = []

    mutating func append(_ bytes: some Collection<UInt8>) {
        var rest = bytes[...]
        while let newline = rest.firstIndex(of: 10) {
            let piece = rest[..<newline]
            if partial.isEmpty {
                keep(String(decoding: piece.prefix(Self.lineBytes), as: UTF8.self))
            } else {
                partial += piece.prefix(Self.lineBytes)
                keep(String(decoding: partial.prefix(Self.lineBytes), as: UTF8.self))
                partial.removeAll(keepingCapacity: true)
            }
            rest = rest[rest.index(after: newline)...]
        }
        // Only the end of an unfinished line is kept; one line can hold no more.
        partial += rest.suffix(Self.partialBytes)
        if partial.count > Self.partialBytes { partial.removeFirst(partial.count - Self.partialBytes) }
    }

    private mutating func keep(_ line: String) {
        if lines.count < Self.keptLines {
            lines.append(line)
        } else {
            lines[next] = line
        }
        next = (next + 1) % Self.keptLines
    }

    func lines(last count: Int) -> [String] {
        let ordered = lines.count < Self.keptLines ? lines : Array(lines[next...] + lines[..<next])
        let unfinished = partial.isEmpty ? [] : [String(decoding: partial.prefix(Self.lineBytes), as: UTF8.self)]
        return Array((ordered + unfinished).suffix(count))
    }
}
