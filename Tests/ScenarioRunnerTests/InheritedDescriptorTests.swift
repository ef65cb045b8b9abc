import POSIX
import Sockets
import Testing

@testable import ScenarioRunner

/// A child this process starts gets its own standard pipes and nothing else of ours: adapters
/// started side by side (`scenarios --jobs`) each held copies of the others' pipes, so one whose
/// stdin was closed saw no end of input until killed 2 s later, and a child could keep a
/// listener's port taken after we closed it.
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

    @Test func aChildGetsNoneOfOurSocketsOrPipes() throws {
        let listener = try TCPListener.open(host: "127.0.0.1", port: 0)
        defer { Posix.close(listener.fd) }
        let other = try Posix.spawnShell("cat >/dev/null")
        defer {
            Posix.close(other.input)
            for fd in [other.output, other.errors] { Posix.close(fd) }
            for _ in 0..<400 where Posix.reap(other.pid) == nil { Posix.sleep(milliseconds: 5) }
        }
        // The shell's own descriptors, listed after its exec: its three and nothing of ours.
        let child = try Posix.spawnShell("ls /proc/$$/fd")
        var listed: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case .processed(let count) = try buffer.withUnsafeMutableBytes({ try Posix.read(child.output, into: $0) })
        {
            listed += buffer[..<count]
        }
        for fd in [child.input, child.output, child.errors] { Posix.close(fd) }
        for _ in 0..<400 where Posix.reap(child.pid) == nil { Posix.sleep(milliseconds: 5) }
        let descriptors = String(decoding: listed, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap {
            Int32($0)
        }
        #expect(descriptors.contains(0) && descriptors.contains(2), "\(descriptors)")
        for ours in [listener.fd, other.input, other.output, other.errors] {
            #expect(!descriptors.contains(ours), "descriptor \(ours) reached the child: \(descriptors)")
        }
    }
}
