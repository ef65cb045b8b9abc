@testable import Adapter
import Clock
import LerixSDK
import Testing

@Suite struct VirtualTimelineTests {
    static let start = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    @Test func timersFireInTrueTimeOrderAcrossDeviceClocks() {
        let timeline = VirtualTimeline(now: Self.start)
        let fast = VirtualDeviceClock(timeline: timeline, offsetMilliseconds: 3_600_000)
        let slow = VirtualDeviceClock(timeline: timeline, offsetMilliseconds: -1_000)
        let fired = Locked<[String]>([])
        fast.schedule(after: .seconds(30)) { fired.withLock { $0.append("fast+30") } }
        slow.schedule(after: .seconds(10)) { fired.withLock { $0.append("slow+10") } }
        fast.schedule(after: .seconds(10)) { fired.withLock { $0.append("fast+10") } }
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
        let clock = VirtualDeviceClock(timeline: timeline, offsetMilliseconds: 0)
        let fired = Locked(0)
        for n in 0..<10_000 {
            // far-future timers replaced at once, as an SDK replaces its wake-up timer
            let far = clock.schedule(after: .seconds(86_400 + n)) { fired.withLock { $0 += 1000 } }
            far.cancel()
            far.cancel()
        }
        clock.schedule(after: .seconds(5)) { fired.withLock { $0 += 1 } }
        #expect(timeline.heapCount < 200)
        while let (_, due) = timeline.popEarliest(notAfter: Self.start.adding(seconds: 200_000)) {
            for entry in due { entry.work() }
        }
        #expect(fired.withLock { $0 } == 1)
    }

    /// The user setting the clock moves the wall clock only: uptime and timers keep true time.
    @Test func settingTheDeviceClockMovesTheWallClockOnly() {
        let timeline = VirtualTimeline(now: Self.start)
        let clock = VirtualDeviceClock(timeline: timeline, offsetMilliseconds: 0)
        let fired = Locked(0)
        clock.schedule(after: .seconds(60)) { fired.withLock { $0 += 1 } }
        let uptime = clock.uptime
        clock.setOffset(milliseconds: -7_200_000)
        #expect(clock.instant == Self.start.adding(seconds: -7200))
        #expect(clock.uptime == uptime)
        #expect(timeline.nextDeadline == Self.start.adding(seconds: 60))
    }
}
