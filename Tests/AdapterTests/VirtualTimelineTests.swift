@testable import Adapter
import Clock
import Testing

@Suite struct VirtualTimelineTests {
    static let start = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    @Test func timersFireInTrueTimeOrderAcrossDeviceClocks() {
        let timeline = VirtualTimeline(now: Self.start)
        let fast = DeviceClock(timeline: timeline, offsetMilliseconds: 3_600_000)
        let slow = DeviceClock(timeline: timeline, offsetMilliseconds: -1_000)
        let fired = Locked<[String]>([])
        fast.schedule(at: fast.now.adding(seconds: 30)) { fired.withLock { $0.append("fast+30") } }
        slow.schedule(at: slow.now.adding(seconds: 10)) { fired.withLock { $0.append("slow+10") } }
        fast.schedule(at: fast.now.adding(seconds: 10)) { fired.withLock { $0.append("fast+10") } }
        #expect(timeline.nextDeadline == Self.start.adding(seconds: 10))
        while let (_, due) = timeline.popEarliest(notAfter: Self.start.adding(seconds: 60)) {
            for entry in due { entry.work() }
        }
        #expect(fired.withLock { $0 } == ["slow+10", "fast+10", "fast+30"])
        #expect(timeline.now == Self.start.adding(seconds: 30))
        #expect(timeline.nextDeadline == nil)
    }

    @Test func cancelledTimersNeverFireAndTheHeapDoesNotGrowWithThem() {
        let timeline = VirtualTimeline(now: Self.start)
        let clock = DeviceClock(timeline: timeline, offsetMilliseconds: 0)
        let fired = Locked(0)
        for n in 0..<10_000 {
            // far-future timers replaced at once, as an SDK replaces its wake-up timer
            let far = clock.schedule(at: Self.start.adding(seconds: 86_400 + Int64(n))) { fired.withLock { $0 += 1000 } }
            far.cancel()
            far.cancel()
        }
        clock.schedule(at: Self.start.adding(seconds: 5)) { fired.withLock { $0 += 1 } }
        #expect(timeline.heapCount < 200)
        while let (_, due) = timeline.popEarliest(notAfter: Self.start.adding(seconds: 200_000)) {
            for entry in due { entry.work() }
        }
        #expect(fired.withLock { $0 } == 1)
    }
}
