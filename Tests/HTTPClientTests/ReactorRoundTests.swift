import Dispatch
import Glibc
import Reactor
import Sockets
import Synchronization
import Testing

/// What the handler and the hook saw, in order.
private final class Notes: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// Reads a pipe whenever the reactor reports it ready, noting whether the reactor said it was
/// serving a round at that moment.
private final class PipeReader: ReactorHandler, @unchecked Sendable {
    let fd: Int32
    let notes: Notes
    let reactor: Reactor
    var deadline: UInt64 { 0 }

    init(fd: Int32, reactor: Reactor, notes: Notes) {
        self.fd = fd
        self.reactor = reactor
        self.notes = notes
    }

    func handle(_ events: Epoll.Events) {
        var byte: UInt8 = 0
        let got = Glibc.read(fd, &byte, 1)
        let serving = reactor.isServing
        notes.add("read \(got == 1 ? String(UnicodeScalar(byte)) : "nothing") serving=\(serving)")
    }

    func deadlinePassed() {}
}

/// The reactor's round hook: what handlers leave for the end of a round (the state store's
/// commit, which the round's answers wait for) runs before the reactor polls again, so the
/// answers' next requests can come in the same wake-up (issue 13).
@Suite struct ReactorRoundTests {
    @Test func roundEndedFollowsEachRoundThatServedADescriptorAndNoOther() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        try Posix.setNonBlocking(ends[0])
        let reactor = try Reactor(label: "test.rounds", sweepInterval: 1_000_000)
        let notes = Notes()
        let reader = PipeReader(fd: ends[0], reactor: reactor, notes: notes)
        reactor.roundEnded = { [reactor] in
            let serving = reactor.isServing
            notes.add("round ended serving=\(serving)")
        }
        reactor.start()
        let registered = DispatchSemaphore(value: 0)
        reactor.queue.async {
            try? reactor.register(reader, fd: reader.fd, interest: [.readable])
            registered.signal()
        }
        registered.wait()
        // The sweep timer fires every millisecond meanwhile: it is not a round.
        usleep(20_000)
        #expect(notes.all == [])
        for byte in Array("ab".utf8) {
            var value = byte
            #expect(write(ends[1], &value, 1) == 1)
            let deadline = Posix.monotonicMilliseconds() + 5_000
            while notes.all.count < (byte == UInt8(ascii: "a") ? 2 : 4), Posix.monotonicMilliseconds() < deadline {
                usleep(1_000)
            }
        }
        let seen = notes.all
        #expect(
            seen == [
                "read a serving=true", "round ended serving=false", "read b serving=true", "round ended serving=false",
            ]
        )
        let stopped = DispatchSemaphore(value: 0)
        reactor.queue.async {
            reactor.deregister(reader, fd: reader.fd)
            reactor.stop()
            stopped.signal()
        }
        stopped.wait()
    }
}
