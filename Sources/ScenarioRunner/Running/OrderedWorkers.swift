import Dispatch
import Foundation
import Synchronization

/// `--jobs N`: items run on N threads of their own (a scenario blocks on its adapter's pipe and
/// its server's sockets, so never on Dispatch's workers), and each result is handed on in item
/// order on the calling thread as soon as every item before it is done, so output reads as a
/// serial run's whatever finishes first.
///
/// ```swift
/// OrderedWorkers.run(count: 3, workers: 2, work: { i in i * i }) { i, square in print(i, square) }
/// // 0 0, 1 1, 2 4, always in that order
/// ```
enum OrderedWorkers {
    /// `startOrder`: the order items are started in (longest first balances the workers);
    /// results are still delivered by index.
    static func run<Result: Sendable>(
        count: Int,
        workers: Int,
        startOrder: [Int]? = nil,
        work: @escaping @Sendable (Int) -> Result,
        deliver: (Int, Result) -> Void
    ) {
        guard count > 0 else { return }
        let order = startOrder ?? Array(0..<count)
        let shared = Shared<Result>()
        let finished = DispatchSemaphore(value: 0)
        let threads = max(1, min(workers, count))
        for _ in 0..<threads {
            let thread = Thread {
                while true {
                    let next: Int? = shared.state.withLock { s in
                        guard s.started < order.count else { return nil }
                        defer { s.started += 1 }
                        return order[s.started]
                    }
                    guard let index = next else { return }
                    let result = work(index)
                    shared.state.withLock { $0.done[index] = result }
                    finished.signal()
                }
            }
            // A scenario's stack is the runner's, the SDK host's and the JSON parser's: give it room.
            thread.stackSize = 8 << 20
            thread.start()
        }
        var delivered = 0
        while delivered < count {
            finished.wait()
            while delivered < count, let result = shared.state.withLock({ $0.done.removeValue(forKey: delivered) }) {
                deliver(delivered, result)
                delivered += 1
            }
        }
    }

    private struct State<Result: Sendable>: Sendable {
        var started = 0
        var done: [Int: Result] = [:]
    }

    private final class Shared<Result: Sendable>: Sendable {
        let state = Mutex(State<Result>())
    }
}
