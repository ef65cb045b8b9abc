import Synchronization
import Testing

@testable import MockServer

/// What waits for a request's commits runs once all of them settled, in the order it came, with
/// the first refusal; the first two actions are held inline, any further ones in an array.
@Suite struct PendingCommitsTests {
    /// Records which action ran, in order, with the problem's status it saw (0: none).
    final class Runs: Sendable {
        let seen = Mutex<[String]>([])
        func action(_ name: String) -> @Sendable (Problem?) -> Void {
            { [self] problem in seen.withLock { $0.append("\(name):\(problem?.status ?? 0)") } }
        }
        var all: [String] { seen.withLock { $0 } }
    }

    @Test func nothingOutstandingRunsAtOnce() {
        let commits = PendingCommits()
        let runs = Runs()
        commits.whenSettled(runs.action("a"))
        #expect(runs.all == ["a:0"])
    }

    @Test func fourActionsWaitForEveryCommitAndRunInOrder() {
        let commits = PendingCommits()
        let runs = Runs()
        commits.expect()
        commits.expect()
        for name in ["a", "b", "c", "d"] { commits.whenSettled(runs.action(name)) }
        commits.settle(nil)
        #expect(runs.all.isEmpty, "one commit is still outstanding")
        commits.settle(nil)
        #expect(runs.all == ["a:0", "b:0", "c:0", "d:0"])
        // Settled: a later action runs at once, the earlier ones do not run again.
        commits.whenSettled(runs.action("e"))
        #expect(runs.all == ["a:0", "b:0", "c:0", "d:0", "e:0"])
    }

    @Test func theFirstRefusalReachesEveryAction() {
        let commits = PendingCommits()
        let runs = Runs()
        commits.expect()
        commits.expect()
        commits.whenSettled(runs.action("answer"))
        commits.whenSettled(runs.action("announce"))
        commits.whenSettled(runs.action("push"))
        commits.settle(Problem(status: 503, detail: "disk full"))
        commits.settle(Problem(status: 500, detail: "later"))
        #expect(runs.all == ["answer:503", "announce:503", "push:503"])
    }
}
