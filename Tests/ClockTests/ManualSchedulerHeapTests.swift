import Clock
import Dispatch
import Randomness
import Synchronization
import Testing

/// The one virtual-time scheduler under load: heap order with ties, cancellation at every
/// stage, work that schedules and cancels while an advance runs, and large counts.
@Suite struct ManualSchedulerHeapTests {
    let start = Instant(secondsSinceEpoch: 1_000_000)

    @Test func a100kEntriesInRandomOrderRunByDeadlineThenByScheduleOrder() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex<[Int]>([])
        var mix = SplitMix64(seed: 7)  // the shuffles are the same every run
        var deadlines: [Int64] = []
        for n in 0..<100_000 {
            let offset = Int64(mix.below(5_000))  // many ties: 100k entries over 5k instants
            deadlines.append(offset)
            clock.schedule(at: start.adding(milliseconds: offset)) { ran.withLock { $0.append(n) } }
        }
        #expect(clock.nextDeadline == start.adding(milliseconds: deadlines.min() ?? 0))
        clock.advance(to: start.adding(seconds: 5))
        let expected = deadlines.indices.sorted { (deadlines[$0], $0) < (deadlines[$1], $1) }
        #expect(ran.withLock { $0 } == expected)
        #expect(clock.nextDeadline == nil)
        #expect(clock.heldCount == 0)
    }

    @Test func tiesKeepScheduleOrderAcrossInterleavedDeadlinesAndSweeps() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex<[String]>([])
        var keep: [any Cancellable] = []
        for round in 0..<200 {
            clock.schedule(at: start.adding(seconds: 10)) { ran.withLock { $0.append("tie\(round)") } }
            // cancelled filler forces sweeps of the heap between the tied entries
            keep.append(
                clock.schedule(at: start.adding(seconds: 5 + Int64(round % 3))) {
                    ran.withLock { $0.append("cancelled") }
                }
            )
            keep.last?.cancel()
            clock.schedule(at: start.adding(seconds: 1)) { ran.withLock { $0.append("early\(round)") } }
        }
        clock.advance(bySeconds: 10)
        #expect(ran.withLock { $0 } == (0..<200).map { "early\($0)" } + (0..<200).map { "tie\($0)" })
    }

    @Test func eachInstantHandsOverOneBatchPerInstantReadingThatInstant() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex<[String]>([])
        for name in ["a", "b", "c"] {
            clock.schedule(at: start.adding(seconds: 2)) { ran.withLock { $0.append(name) } }
        }
        clock.schedule(at: start.adding(seconds: 1)) { ran.withLock { $0.append("first") } }
        var batches: [(Instant, Int)] = []
        clock.advance(to: start.adding(seconds: 3)) { instant, due in
            #expect(clock.now == instant)
            batches.append((instant, due.count))
            for work in due { work.run() }
        }
        #expect(batches.map(\.0) == [start.adding(seconds: 1), start.adding(seconds: 2)])
        #expect(batches.map(\.1) == [1, 3])
        #expect(ran.withLock { $0 } == ["first", "a", "b", "c"])
        #expect(clock.now == start.adding(seconds: 3))
    }

    /// A batch is taken out of the heap at once; a cancel from earlier work of the same batch
    /// still stops an entry that has not started.
    @Test func cancellingWorkOfTheSameInstantBeforeItStartsStopsIt() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex<[String]>([])
        let second = Mutex<(any Cancellable)?>(nil)
        clock.schedule(at: start.adding(seconds: 1)) {
            ran.withLock { $0.append("first") }
            second.withLock { $0?.cancel() }
        }
        second.withLock { $0 = clock.schedule(at: start.adding(seconds: 1)) { ran.withLock { $0.append("second") } } }
        var results: [Bool] = []
        clock.advance(to: start.adding(seconds: 1)) { _, due in
            results = due.map { $0.run() }
        }
        #expect(results == [true, false])
        #expect(ran.withLock { $0 } == ["first"])
    }

    @Test func cancelAfterRunningOrTwiceDoesNothing() {
        let clock = ManualScheduler(now: start)
        let count = Mutex(0)
        let handle = clock.schedule(at: start.adding(seconds: 1)) { count.withLock { $0 += 1 } }
        clock.advance(bySeconds: 1)
        handle.cancel()
        handle.cancel()
        clock.schedule(at: start.adding(seconds: 2)) { count.withLock { $0 += 10 } }
        clock.advance(bySeconds: 1)
        #expect(count.withLock { $0 } == 11)
    }

    @Test func halfOf100kCancelledNeverRunAndTheHeapStaysBounded() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex(0)
        var peak = 0
        for n in 0..<100_000 {
            let handle = clock.schedule(at: start.adding(seconds: Int64(86_400 + n))) { ran.withLock { $0 += 1 } }
            if n % 2 == 1 { handle.cancel() }
            peak = max(peak, clock.heldCount)
        }
        #expect(peak <= 2 * 50_000 + 64, "cancelled entries are swept as the heap grows")
        clock.advance(to: start.adding(seconds: 86_400 + 100_000))
        #expect(ran.withLock { $0 } == 50_000)
    }

    @Test func workMaySchedulePastNowAndCancelFreelyWhileAdvancing() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex<[String]>([])
        let later = clock.schedule(at: start.adding(seconds: 50)) { ran.withLock { $0.append("cancelled later") } }
        clock.schedule(at: start.adding(seconds: 10)) {
            ran.withLock { $0.append("at 10") }
            later.cancel()
            // already past: runs at once in this advance, and time does not go back for it
            clock.schedule(at: start.adding(seconds: 3)) {
                ran.withLock { $0.append("past, at \(clock.now.milliseconds(since: start) / 1000)") }
            }
            clock.schedule(at: clock.now) { ran.withLock { $0.append("same instant") } }
            clock.schedule(at: start.adding(seconds: 70)) { ran.withLock { $0.append("beyond the target") } }
            _ = clock.nextDeadline  // reading the heap from inside work does not deadlock
        }
        clock.advance(to: start.adding(seconds: 60))
        #expect(ran.withLock { $0 } == ["at 10", "past, at 10", "same instant"])
        #expect(clock.now == start.adding(seconds: 60))
        #expect(clock.nextDeadline == start.adding(seconds: 70))
    }

    @Test func advancingToAnEarlierTimeLeavesTheClockWhereItIs() {
        let clock = ManualScheduler(now: start)
        clock.advance(to: start.adding(seconds: -5))
        #expect(clock.now == start)
    }

    @Test func schedulingFromManyThreadsLosesNothing() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for n in 0..<5_000 {
                let handle = clock.schedule(at: start.adding(milliseconds: Int64(n))) { ran.withLock { $0 += 1 } }
                if n % 5 == thread % 5 { handle.cancel() }
            }
        }
        clock.advance(bySeconds: 5)
        #expect(ran.withLock { $0 } == 8 * 4_000)
    }
}
