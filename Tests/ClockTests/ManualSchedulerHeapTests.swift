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

    /// A fleet's devices set their next timers one after another for one deadline: they share
    /// one heap entry and still run in scheduling order.
    @Test func workScheduledInARunForOneDeadlineSharesOneBucketAndRunsInOrder() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex<[Int]>([])
        for n in 0..<1_000 {
            clock.schedule(at: start.adding(seconds: 60)) { ran.withLock { $0.append(n) } }
        }
        #expect(clock.heldBucketCount == 1)
        #expect(clock.heldCount == 1_000)
        var batches: [Int] = []
        clock.advance(to: start.adding(seconds: 60)) { _, due in
            batches.append(due.count)
            for work in due { work.run() }
        }
        #expect(batches == [1_000])
        #expect(ran.withLock { $0 } == Array(0..<1_000))
        #expect(clock.heldBucketCount == 0)
    }

    /// A deadline's entries interleaved with other deadlines' land in several buckets; the
    /// instant still runs them all in one batch, in scheduling order across the buckets.
    @Test func tiesAcrossBucketsOfOneDeadlineRunInSchedulingOrder() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex<[String]>([])
        var mix = SplitMix64(seed: 11)
        var expected: [(deadline: Int64, sequence: Int, name: String)] = []
        var sequence = 0
        for run in 0..<300 {
            // runs of 1 to 5 entries for one of three deadlines, so buckets both grow and split
            let deadline = Int64(mix.below(3))
            for k in 0..<(1 + Int(mix.below(5))) {
                let name = "\(deadline):\(run).\(k)"
                expected.append((deadline, sequence, name))
                sequence += 1
                clock.schedule(at: start.adding(seconds: 10 + deadline)) { ran.withLock { $0.append(name) } }
            }
        }
        #expect(clock.heldBucketCount > 3)
        #expect(clock.heldBucketCount < sequence)
        var batches: [Int] = []
        clock.advance(to: start.adding(seconds: 20)) { _, due in
            batches.append(due.count)
            for work in due { work.run() }
        }
        #expect(batches.count == 3)
        let order = expected.sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }.map(\.name)
        #expect(ran.withLock { $0 } == order)
    }

    /// Cancelled entries inside a bucket, at its front, middle and end, never run nor reach
    /// the batch; a bucket holding only cancelled entries gives no deadline and no batch.
    @Test func cancellingInsideABucketDropsOnlyThoseEntries() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex<[Int]>([])
        var handles: [any Cancellable] = []
        for n in 0..<6 {
            handles.append(clock.schedule(at: start.adding(seconds: 5)) { ran.withLock { $0.append(n) } })
        }
        var doomed: [any Cancellable] = []
        for n in 0..<3 {
            doomed.append(clock.schedule(at: start.adding(seconds: 2)) { ran.withLock { $0.append(100 + n) } })
        }
        for n in [0, 2, 5] { handles[n].cancel() }
        for handle in doomed { handle.cancel() }
        #expect(clock.heldBucketCount == 2)
        #expect(clock.nextDeadline == start.adding(seconds: 5))
        var batches: [(Instant, Int)] = []
        clock.advance(to: start.adding(seconds: 10)) { instant, due in
            batches.append((instant, due.count))
            for work in due { work.run() }
        }
        #expect(batches.map(\.0) == [start.adding(seconds: 5)])
        #expect(batches.map(\.1) == [3])
        #expect(ran.withLock { $0 } == [1, 3, 4])
        #expect(clock.heldCount == 0)
    }

    /// Work of an instant's batch that schedules for that same instant starts a new bucket,
    /// handed over as a further batch at the instant, after the first.
    @Test func workScheduledForTheInstantBeingRunComesAsAFurtherBatch() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex<[String]>([])
        for name in ["a", "b"] {
            clock.schedule(at: start.adding(seconds: 1)) {
                ran.withLock { $0.append(name) }
                clock.schedule(at: clock.now) { ran.withLock { $0.append(name + "+") } }
            }
        }
        var batches: [(Instant, Int)] = []
        clock.advance(to: start.adding(seconds: 1)) { instant, due in
            batches.append((instant, due.count))
            for work in due { work.run() }
        }
        #expect(batches.map(\.0) == [start.adding(seconds: 1), start.adding(seconds: 1)])
        #expect(batches.map(\.1) == [2, 2])
        #expect(ran.withLock { $0 } == ["a", "b", "a+", "b+"])
    }

    /// Sweeps compact buckets that hold cancelled entries; entries appended to a bucket after
    /// a sweep still run after the ones before it.
    @Test func sweepsKeepABucketsOrderAndLaterEntriesJoinIt() {
        let clock = ManualScheduler(now: start)
        let ran = Mutex<[Int]>([])
        for n in 0..<500 {
            let handle = clock.schedule(at: start.adding(seconds: 30)) { ran.withLock { $0.append(n) } }
            if n % 3 != 0 { handle.cancel() }  // enough cancelled to force sweeps as the bucket grows
        }
        #expect(clock.heldCount < 500)
        #expect(clock.heldBucketCount == 1)
        clock.advance(bySeconds: 30)
        #expect(ran.withLock { $0 } == Array(stride(from: 0, to: 500, by: 3)))
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
