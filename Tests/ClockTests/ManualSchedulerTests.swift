import Clock
import Synchronization
import Testing

@Suite struct ManualSchedulerTests {
    let start = Instant(secondsSinceEpoch: 1_000_000)

    @Test func runsDueWorkInDeadlineOrderThenScheduleOrder() {
        let clock = ManualScheduler(now: start)
        let log = Mutex<[String]>([])
        clock.schedule(at: start.adding(seconds: 20)) { log.withLock { $0.append("b") } }
        clock.schedule(at: start.adding(seconds: 10)) { log.withLock { $0.append("a") } }
        clock.schedule(at: start.adding(seconds: 20)) { log.withLock { $0.append("c") } }
        clock.schedule(at: start.adding(seconds: 31)) { log.withLock { $0.append("late") } }
        clock.advance(bySeconds: 30)
        #expect(log.withLock { $0 } == ["a", "b", "c"])
        #expect(clock.now == start.adding(seconds: 30))
        #expect(clock.nextDeadline == start.adding(seconds: 31))
    }

    /// A fresh state starts over at a fixed time, backwards too, but never leaves live work behind.
    @Test func restartGoesBackOnlyWhenNoLiveWorkIsPending() {
        let clock = ManualScheduler(now: start)
        clock.advance(bySeconds: 3_600)
        let cancelled = clock.schedule(at: start.adding(seconds: 4_000)) {}
        cancelled.cancel()
        #expect(clock.restart(at: start.adding(seconds: 60)), "cancelled work does not hold time")
        #expect(clock.now == start.adding(seconds: 60) && clock.nextDeadline == nil)
        let ran = Mutex(false)
        clock.schedule(at: start.adding(seconds: 120)) { ran.withLock { $0 = true } }
        #expect(!clock.restart(at: start), "live work pins time")
        #expect(clock.now == start.adding(seconds: 60))
        clock.advance(bySeconds: 60)
        #expect(ran.withLock { $0 })
    }

    @Test func workSeesItsOwnDeadlineAsNow() {
        let clock = ManualScheduler(now: start)
        let seen = Mutex<Instant?>(nil)
        clock.schedule(at: start.adding(seconds: 5)) { seen.withLock { $0 = clock.now } }
        clock.advance(bySeconds: 60)
        #expect(seen.withLock { $0 } == start.adding(seconds: 5))
    }

    @Test func workScheduledWhileAdvancingRunsInTheSameAdvanceWhenDue() {
        let clock = ManualScheduler(now: start)
        let count = Mutex(0)
        clock.schedule(at: start.adding(seconds: 1)) {
            count.withLock { $0 += 1 }
            clock.schedule(at: clock.now.adding(seconds: 1)) { count.withLock { $0 += 1 } }
        }
        clock.advance(bySeconds: 2)
        #expect(count.withLock { $0 } == 2)
    }

    @Test func cancelledWorkNeverRuns() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex(false)
        let handle = clock.schedule(at: start.adding(seconds: 1)) { ran.withLock { $0 = true } }
        handle.cancel()
        clock.advance(bySeconds: 10)
        #expect(ran.withLock { $0 } == false)
        #expect(clock.nextDeadline == nil)
    }

    @Test func workDueExactlyAtTheTargetRuns() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex(false)
        clock.schedule(at: start.adding(milliseconds: 1500)) { ran.withLock { $0 = true } }
        clock.advance(to: start.adding(milliseconds: 1499))
        #expect(ran.withLock { $0 } == false)
        clock.advance(to: start.adding(milliseconds: 1500))
        #expect(ran.withLock { $0 } == true)
    }
}
