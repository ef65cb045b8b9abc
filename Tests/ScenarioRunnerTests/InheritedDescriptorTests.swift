import POSIX
import Sockets
import Testing

@testable import ScenarioRunner

/// A child this process starts gets its own standard pipes and nothing else of ours: adapters
/// started side by side (`scenarios --jobs`) each held copies of the others' pipes, so one whose
/// stdin was closed saw no end of input until killed 2 s later, and a child could keep a closed
/// listener's port taken.
@Suite struct InheritedDescriptorTests {
    /// An adapter that answers `hello`, then reads until its stdin ends and exits.
    static func adapter() throws -> SubprocessAdapter {
        let script = """
            read line; \(SubprocessAdapterTests.idOfLine); echo "{\\"id\\":$id,\\"ok\\":true,\\"name\\":\\"t\\",\\"version\\":\\"0\\",\\"capabilities\\":[]}"; cat >/dev/null
            """
        // Time enough to exit on a loaded machine: without the fix it never would (its sibling
        // holds its input open), so the verdict does not hang on the deadline's length.
        let adapter = try SubprocessAdapter(command: script, options: .init(exitTimeout: 10, passStderrThrough: false))
        _ = try adapter.send(.object([("cmd", "hello")]))
        return adapter
    }

    @Test func anAdapterSeesItsInputEndWhileAnotherStartedAfterItRuns() throws {
        let first = try Self.adapter()
        let second = try Self.adapter()
        #expect(first.closeAndWaitForExit(), "the first adapter exited by itself once its stdin closed")
        #expect(second.closeAndWaitForExit())
    }

    @Test func aChildDoesNotKeepAClosedListenersPort() throws {
        let listener = try TCPListener.open(host: "127.0.0.1", port: 0)
        let child = try Posix.spawnShell("sleep 5")
        defer {
            Posix.killGroup(child.pid)
            for fd in [child.input, child.output, child.errors] { Posix.close(fd) }
            for _ in 0..<200 where Posix.reap(child.pid) == nil { Posix.sleep(milliseconds: 5) }
        }
        Posix.close(listener.fd)
        // Linux refuses a second listener on a port while any process holds the first open.
        let again = try TCPListener.open(host: "127.0.0.1", port: listener.port)
        Posix.close(again.fd)
    }
}
