import Dispatch
import Foundation
import JSON
import TestSupport
import Testing

@testable import ScenarioRunner

/// An adapter that breaks is a failure with a reason, never a hang: each way of breaking the
/// protocol ends the process and says which command, which device, and what it last logged.
@Suite struct SubprocessAdapterTests {
    /// The shell that sets `$id` to the id of the request in `$line` (ids are random).
    static let idOfLine = #"id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')"#

    /// A shell adapter: answers `hello`, then runs `then` for the next line (`$id` is its id).
    func adapter(_ then: String, timeout: Double = 1, readsNext: Bool = true) throws -> SubprocessAdapter {
        let script = """
            read line; \(Self.idOfLine); echo "{\\"id\\":$id,\\"ok\\":true,\\"name\\":\\"t\\",\\"version\\":\\"0\\",\\"capabilities\\":[]}"
            \(readsNext ? #"read line; echo "t: got $line" >&2; "# + Self.idOfLine + "; " : "")\(then)
            """
        let adapter = try SubprocessAdapter(
            command: script,
            options: .init(commandTimeout: timeout, passStderrThrough: false)
        )
        _ = try adapter.send(.object([("cmd", "hello")]))
        return adapter
    }

    func failure(of adapter: SubprocessAdapter) -> String {
        do {
            _ = try adapter.send(.object([("cmd", "launch"), ("device", "phone")]))
            return ""
        } catch {
            return error.message
        }
    }

    @Test func anAdapterThatNeverAnswersIsStoppedAtTheDeadline() throws {
        let adapter = try adapter("sleep 1000")
        let started = DispatchTime.now().uptimeNanoseconds
        let message = failure(of: adapter)
        let waited = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        #expect(waited < 4, "stopped at the 1 s deadline, not later (\(waited) s)")
        #expect(message.contains("`launch` for device 'phone': no answer within 1 s"), "\(message)")
        #expect(message.contains("ended by signal 9"), "\(message)")
        #expect(
            message.contains(#"    t: got {"cmd":"launch","device":"phone","id":"#),
            "\(message)"
        )
        // Stopped for good: the next command is refused at once, naming the first failure.
        #expect(failure(of: adapter).contains("stopped after an earlier failure"))
        adapter.close()
    }

    @Test func anAdapterThatExitsSaysHowItEnded() throws {
        let message = failure(of: try adapter("echo 't: dying' >&2; exit 3"))
        #expect(message.contains("exited before answering (it exited with status 3)"), "\(message)")
        #expect(message.hasSuffix("    t: dying"), "\(message)")
    }

    @Test func anAnswerWithAnotherIdOrNotJSONOrNoOkIsAFailure() throws {
        #expect(
            failure(of: try adapter(#"echo '{"id":9,"ok":true}'; sleep 1000"#)).contains("answered id 9 to request ")
        )
        #expect(failure(of: try adapter("echo 'ready!'; sleep 1000")).contains("a line that is not JSON"))
        #expect(failure(of: try adapter("echo '[1]'; sleep 1000")).contains("a JSON array, not an object"))
        #expect(failure(of: try adapter(#"echo "{\"id\":$id}"; sleep 1000"#)).contains(#"has no boolean "ok""#))
    }

    /// An adapter that stops reading stdin (its pipe full) cannot hold the runner's write: the
    /// command's deadline covers writing the request too (it used to block in write(2) for ever).
    @Test func anAdapterThatStopsReadingStdinIsStoppedAtTheDeadline() throws {
        let adapter = try adapter("sleep 1000", readsNext: false)
        let started = DispatchTime.now().uptimeNanoseconds
        var message = ""
        do {
            // Far more than a pipe holds (64 KiB): the write must wait for the adapter.
            _ = try adapter.send(
                .object([("cmd", "launch"), ("device", .string(String(repeating: "p", count: 1 << 20)))])
            )
        } catch {
            message = error.message
        }
        let waited = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        #expect(waited < 4, "stopped at the 1 s deadline (\(waited) s)")
        #expect(message.contains("did not read the request within 1 s"), "\(message)")
        #expect(message.contains("ended by signal 9"), "\(message)")
        adapter.close()
    }

    /// Answers must answer the requests actually sent: ids are drawn at random, so an adapter
    /// that writes answers ahead without reading (numbering them 2, 3, … as a counter would)
    /// fails, whether its answers wait in the pipe or trickle in later.
    @Test func anAdapterThatWritesAnswersAheadFails() throws {
        let dir = try TestFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let written = dir + "/written"
        let counting =
            #"i=2; while [ $i -lt 40 ]; do echo "{\"id\":$i,\"ok\":true}"; i=$((i+1)); done; : > '"#
            + written + #"'; sleep 1000"#
        let ahead = try adapter(counting, readsNext: false)
        // The answers wait in the pipe before the request is written: the adapter says when they
        // are all there (a fixed 0.3 s sleep here lost that race on a loaded machine).
        for _ in 0..<6_000 where !FileManager.default.fileExists(atPath: written) { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: written), "the adapter never wrote its answers")
        let early = failure(of: ahead)
        #expect(early.contains("before the request was sent"), "\(early)")
        // Answers that come after the request, numbered by a counter instead of its id (it reads
        // the line first, so the answer is later than the request however the machine schedules).
        let trickling = try adapter(#"read line; echo '{"id":2,"ok":true}'; sleep 1000"#, readsNext: false)
        let late = failure(of: trickling)
        #expect(late.contains("answered id 2 to request "), "\(late)")
        // An honest adapter that echoes the id it read passes.
        let honest = try adapter(#"echo "{\"id\":$id,\"ok\":true}"; sleep 1000"#)
        #expect(try honest.send(.object([("cmd", "launch"), ("device", "phone")]))["ok"] == true)
        honest.close()
    }

    /// A stderr flood cannot outlive the command's deadline: stderr is read a chunk at a time
    /// inside the deadline's loop (it used to be drained until the pipe was empty, 12 s for 2).
    @Test func aStderrFloodEndsAtTheCommandDeadline() throws {
        let adapter = try adapter(
            "yes 'flood flood flood flood flood flood' >&2 & yes 'more more more more more' >&2 & yes 'and more' >&2 & wait"
        )
        let started = DispatchTime.now().uptimeNanoseconds
        let message = failure(of: adapter)
        let waited = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        #expect(waited < 3.5, "stopped at the 1 s deadline (\(waited) s)")
        #expect(message.contains("no answer within 1 s"), "\(message.prefix(300))")
        // The quoted tail is its last lines, each bounded.
        #expect(message.utf8.count < 12 * (StderrTail.lineBytes + 10) + 1_000)
        adapter.close()
    }

    /// The stderr tail is linear in what it is fed: 200,000 short lines in one chunk (it used
    /// to move the rest of the buffer once per line) and keeps only the last lines.
    @Test func theStderrTailIsLinearAndBounded() {
        var tail = StderrTail()
        var lines: [UInt8] = []
        lines.reserveCapacity(3 << 20)
        for i in 0..<200_000 { lines.append(contentsOf: "line \(i)\n".utf8) }
        let started = DispatchTime.now().uptimeNanoseconds
        tail.append(lines)
        tail.append(Array(repeating: UInt8(ascii: "x"), count: 1 << 20))
        let took = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        #expect(took < 5, "\(took) s")
        let last = tail.lines(last: 3)
        #expect(last.count == 3)
        #expect(last[0] == "line 199998" && last[1] == "line 199999")
        #expect(last[2].utf8.count == StderrTail.lineBytes)
    }

    /// What passes through to the runner's stderr is capped per adapter process, with a note.
    @Test func passedThroughStderrIsCapped() throws {
        let caught = Caught()
        let adapter = try SubprocessAdapter(
            command: "head -c 3000000 /dev/zero | tr '\\0' 'e' >&2; read line; echo '{}'",
            options: .init(commandTimeout: 5, stderrSink: { caught.add($0) })
        )
        _ = try? adapter.send(.object([("cmd", "hello")]))
        adapter.close()
        let text = String(decoding: caught.bytes, as: UTF8.self)
        #expect(caught.bytes.count < SubprocessAdapter.stderrPassThroughLimit + 200, "\(caught.bytes.count)")
        #expect(text.hasSuffix("wrote over 1 MiB to stderr; the rest is not shown]\n"), "\(text.suffix(120))")
    }

    /// Every size in `hello` is the adapter's: a 5 MiB name or 16,000 capabilities are refused at
    /// once, before anything prints, validates or looks them up.
    @Test func aHelloPastItsBoundsIsRefused() throws {
        let long = String(repeating: "n", count: 5 << 20)
        #expect(throws: AdapterFailure.self) {
            _ = try AdapterHello(.object([("name", .string(long)), ("version", "1"), ("capabilities", .array([]))]))
        }
        let many = JSON.array((0..<16_000).map { .string("platform:ios\($0)") })
        do {
            _ = try AdapterHello(.object([("name", "a"), ("version", "1"), ("capabilities", many)]))
            Issue.record("16,000 capabilities were taken")
        } catch {
            #expect(error.message.contains("16000 capabilities; at most 64"), "\(error)")
        }
        let fine = try AdapterHello(
            .object([("name", "web"), ("version", "1.0"), ("capabilities", .array(["push", "platform:web"]))])
        )
        #expect(fine.displayName == "web 1.0" && fine.capabilities == ["push", "platform:web"])
    }

    @Test func closingAnAdapterThatIgnoresEndOfInputKillsIt() throws {
        let adapter = try adapter("trap '' TERM; sleep 1000")
        let started = DispatchTime.now().uptimeNanoseconds
        adapter.close()
        #expect(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 < 6)
    }

    /// `--adapter` with no `--server`: the runner serves its own server for the spawned adapter.
    @Test func aSpawnedAdapterRunsAgainstTheRunnersOwnServer() throws {
        let suite = try ScenarioSuite.load(paths: [
            BundledSuiteTests.scenariosFolder + "/refresh-fetches-now.yaml",
            BundledSuiteTests.scenariosFolder + "/not-modified-answers.yaml",
        ])
        let environment = LoopbackEnvironment(
            adapterCommand: "'\(ServerProcess.binary.path)' adapter --quiet",
            adapterOptions: .onALoadedMachine
        )
        let result = SuiteRunner(options: SuiteOptions()).run(suite, in: environment)
        #expect(result.passed == 2, "\(result.outcomes.map(\.failure))")
    }
}

/// Bytes a test's stderr sink caught.
final class Caught: @unchecked Sendable {
    private let lock = NSLock()
    private var caught: [UInt8] = []
    func add(_ bytes: [UInt8]) { lock.withLock { caught += bytes } }
    var bytes: [UInt8] { lock.withLock { caught } }
}
