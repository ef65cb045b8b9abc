import Dispatch
import Foundation
import JSON
import TestSupport
import Testing

@testable import ScenarioRunner

/// An adapter that breaks is a failure with a reason, never a hang: each way of breaking the
/// protocol ends the process and says which command, which device, and what it last logged.
@Suite struct SubprocessAdapterTests {
    /// A shell adapter: answers `hello`, then runs `then` for the next line.
    func adapter(_ then: String, timeout: Double = 1) throws -> SubprocessAdapter {
        let script = """
            read line; echo '{"id":1,"ok":true,"name":"t","version":"0","capabilities":[]}'
            read line; echo "t: got $line" >&2; \(then)
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
            message.contains(#"    t: got {"cmd":"launch","device":"phone","id":2}"#)
                || message.contains("    t: got {"),
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
            failure(of: try adapter(#"echo '{"id":9,"ok":true}'; sleep 1000"#)).contains("answered id 9 to request 2")
        )
        #expect(failure(of: try adapter("echo 'ready!'; sleep 1000")).contains("a line that is not JSON"))
        #expect(failure(of: try adapter("echo '[1]'; sleep 1000")).contains("a JSON array, not an object"))
        #expect(failure(of: try adapter(#"echo '{"id":2}'; sleep 1000"#)).contains(#"has no boolean "ok""#))
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
        let environment = LoopbackEnvironment(adapterCommand: "'\(ServerProcess.binary.path)' adapter --quiet")
        let result = SuiteRunner(options: SuiteOptions()).run(suite, in: environment)
        #expect(result.passed == 2, "\(result.outcomes.map(\.failure))")
    }
}
