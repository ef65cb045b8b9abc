import Dispatch
import HTTP
import Synchronization
import Testing

@testable import HTTPServer

/// Answers whose commit another thread ran reach their connection's loop through
/// ``EventLoop/runOnLoop(_:)``: every piece of work runs once, on the loop, in the order each
/// sender handed it over (issue 13: one queue hop for a commit's answers, not one per answer).
@Suite struct RunOnLoopTests {
    private struct Silent: Responder {
        func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {}
    }

    @Test func workFromManyThreadsRunsOnceOnTheLoopInEachSendersOrder() throws {
        let context = ServerContext(
            configuration: .init(host: "127.0.0.1", port: 0),
            responder: Silent(),
            log: nil,
            http2: nil
        )
        let loop = try EventLoop(context: context, index: 0, connectionEnded: {})
        loop.start()
        let senders = 4
        let each = 500
        let seen = Mutex<[[Int]]>(Array(repeating: [], count: senders))
        let offLoop = Atomic<Int>(0)
        let done = DispatchGroup()
        for sender in 0..<senders {
            done.enter()
            DispatchQueue.global().async {
                for index in 0..<each {
                    loop.runOnLoop {
                        if !loop.isCurrent { offLoop.add(1, ordering: .relaxed) }
                        seen.withLock { $0[sender].append(index) }
                    }
                }
                done.leave()
            }
        }
        done.wait()
        let drained = DispatchSemaphore(value: 0)
        // Queued behind every hop the senders started.
        loop.runOnLoop { drained.signal() }
        #expect(drained.wait(timeout: .now() + 5) == .success)
        #expect(offLoop.load(ordering: .relaxed) == 0)
        #expect(seen.withLock { $0 } == Array(repeating: Array(0..<each), count: senders))
        let stopped = DispatchSemaphore(value: 0)
        loop.queue.async {
            loop.stopSources()
            stopped.signal()
        }
        stopped.wait()
    }
}
