import Clock
import JSON
import LerixSDK
import Testing

@testable import Adapter

/// Device clocks on one shared ``ManualScheduler``: true-time order across devices, the wall
/// clock's offset apart from uptime and timers.
@Suite struct VirtualDeviceClockTests {
    static let start = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    @Test func timersFireInTrueTimeOrderAcrossDeviceClocks() {
        let trueTime = ManualScheduler(now: Self.start)
        let fast = VirtualDeviceClock(scheduler: trueTime, offsetMilliseconds: 3_600_000)
        let slow = VirtualDeviceClock(scheduler: trueTime, offsetMilliseconds: -1_000)
        let fired = Locked<[String]>([])
        fast.schedule(after: .seconds(30)) { fired.withLock { $0.append("fast+30") } }
        slow.schedule(after: .seconds(10)) { fired.withLock { $0.append("slow+10") } }
        fast.schedule(after: .seconds(10)) { fired.withLock { $0.append("fast+10") } }
        #expect(trueTime.nextDeadline == Self.start.adding(seconds: 10))
        trueTime.advance(to: Self.start.adding(seconds: 60))
        #expect(fired.withLock { $0 } == ["slow+10", "fast+10", "fast+30"])
        #expect(trueTime.now == Self.start.adding(seconds: 60))
        #expect(trueTime.nextDeadline == nil)
    }

    @Test func cancelledDeviceTimersNeverFireAndDoNotPileUp() {
        let trueTime = ManualScheduler(now: Self.start)
        let clock = VirtualDeviceClock(scheduler: trueTime, offsetMilliseconds: 0)
        let fired = Locked(0)
        for n in 0..<10_000 {
            // far-future timers replaced at once, as an SDK replaces its wake-up timer
            let far = clock.schedule(after: .seconds(86_400 + n)) { fired.withLock { $0 += 1000 } }
            far.cancel()
            far.cancel()
        }
        clock.schedule(after: .seconds(5)) { fired.withLock { $0 += 1 } }
        #expect(trueTime.heldCount < 200)
        trueTime.advance(to: Self.start.adding(seconds: 200_000))
        #expect(fired.withLock { $0 } == 1)
    }

    /// The user setting the clock moves the wall clock only: uptime and timers keep true time.
    @Test func settingTheDeviceClockMovesTheWallClockOnly() {
        let trueTime = ManualScheduler(now: Self.start)
        let clock = VirtualDeviceClock(scheduler: trueTime, offsetMilliseconds: 0)
        let fired = Locked(0)
        clock.schedule(after: .seconds(60)) { fired.withLock { $0 += 1 } }
        let uptime = clock.uptime
        clock.setOffset(milliseconds: -7_200_000)
        #expect(clock.instant == Self.start.adding(seconds: -7200))
        #expect(clock.uptime == uptime)
        #expect(trueTime.nextDeadline == Self.start.adding(seconds: 60))
        clock.setOffset(milliseconds: 90_000)
        #expect(clock.instant == Self.start.adding(seconds: 90))
        #expect(trueTime.nextDeadline == Self.start.adding(seconds: 60))
    }

    /// In process the server's timers and the devices' share one heap: one advance fires both
    /// in deadline order, whichever clock set them.
    @Test func serverAndDeviceTimersOnOneSchedulerFireInOneOrder() {
        let trueTime = ManualScheduler(now: Self.start)
        let device = VirtualDeviceClock(scheduler: trueTime, offsetMilliseconds: -30_000)
        let fired = Locked<[String]>([])
        device.schedule(after: .seconds(60)) { fired.withLock { $0.append("device+60") } }
        trueTime.schedule(at: Self.start.adding(seconds: 30)) { fired.withLock { $0.append("server+30") } }
        trueTime.schedule(at: Self.start.adding(seconds: 60)) { fired.withLock { $0.append("server+60") } }
        device.schedule(after: .seconds(45)) { fired.withLock { $0.append("device+45") } }
        trueTime.advance(to: Self.start.adding(seconds: 60))
        #expect(fired.withLock { $0 } == ["server+30", "device+45", "device+60", "server+60"])
    }
}

/// An ``AdapterHost`` on a scheduler it shares (the in-process server's manual clock).
@Suite struct SharedSchedulerHostTests {
    static let start = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    @Test func advanceFiresTheServersTimersInOrderWithTheDevicesAndMovesOneClock() {
        let trueTime = ManualScheduler(now: Self.start)
        let backend = Backend()
        backend.update { $0.lifetime = 60 }  // the device polls every minute
        let answered = Locked<[Int64]>([])
        let host = AdapterHost(
            network: TransportNetwork(
                InMemoryTransport { request in
                    answered.withLock { $0.append(trueTime.now.milliseconds(since: Self.start) / 1000) }
                    return backend.answer(request)
                }
            ),
            scheduler: trueTime
        )
        let driver = Driver(host)
        #expect(driver.create("a")["ok"] == true)
        driver.send("launch", [("device", "a")])
        let serverSaw = Locked<[Int64]>([])
        trueTime.schedule(at: Self.start.adding(seconds: 90)) {
            serverSaw.withLock { $0.append(trueTime.now.milliseconds(since: Self.start) / 1000) }
        }
        #expect(driver.send("next_deadline")["next_deadline"] == "2026-12-02T11:01:00.000Z")
        driver.send("advance", [("to", "2026-12-02T11:02:30.000Z")])
        #expect(
            serverSaw.withLock { $0 } == [90],
            "the server's timer ran inside the adapter's advance, at its own time"
        )
        #expect(answered.withLock { $0 } == [0, 60, 120], "checks at launch and at each poll, on the same clock")
        #expect(trueTime.now == Self.start.adding(seconds: 150))
        #expect(host.now == trueTime.now)
    }

    @Test func aCreateCannotMoveSharedTimeBackwards() {
        let trueTime = ManualScheduler(now: Self.start)
        let host = AdapterHost(
            network: TransportNetwork(InMemoryTransport { _ in .success(.init(status: 304)) }),
            scheduler: trueTime
        )
        let driver = Driver(host)
        #expect(driver.create("a")["ok"] == true)  // Driver.create says 11:00, the shared time
        var config = JSONObject([("base_url", "http://backend.test"), ("project", "demo"), ("platform", "ios")])
        config["app_version"] = "2.3.0"
        #expect(
            driver.send("create", [("device", "b"), ("now", "2026-12-02T10:00:00.000Z"), ("config", .object(config))])[
                "ok"
            ] == true
        )
        #expect(trueTime.now == Self.start)
        #expect(driver.send("advance", [("to", "2026-12-02T10:30:00.000Z")])["ok"] == false)
    }
}
