import Clock
import Foundation
import JSON
import LerixSDK
import Testing

/// The user sets the device clock, backwards or forwards, within one run and between runs.
/// Every place the SDK measures time between two device-clock readings (an answer's lifetime,
/// the poll, the 7-day drop, Later, the server-time correction of windows) either measures the
/// true interval (within a run, by the uptime) or, when it cannot (a reading in the device's
/// future after a restart), never makes the answer look fresh.
@Suite struct DeviceClockChangeTests {
    static let hours2: TimeInterval = 7200

    // MARK: - Lifetime

    @Test func lifetimeWithinARunCountsTrueTimeWhenTheClockIsSetBack() {
        let world = World()
        let sdk = world.sdk()
        sdk.start()
        sdk.enterBackground()
        world.advance(seconds: 200)
        world.device.setTime(world.device.now - Self.hours2)
        sdk.enterForeground()
        #expect(world.server.checks == 1, "200 s old truly: fresh")
        sdk.enterBackground()
        world.advance(seconds: 100)
        sdk.enterForeground()
        #expect(world.server.checks == 2, "300 s old truly: stale, although the clock says -1h55m")
    }

    @Test func lifetimeWithinARunCountsTrueTimeWhenTheClockIsSetForward() {
        let world = World()
        let sdk = world.sdk()
        sdk.start()
        sdk.enterBackground()
        world.advance(seconds: 100)
        world.device.setTime(world.device.now + 86_400)
        sdk.enterForeground()
        #expect(world.server.checks == 1, "100 s old truly: still fresh")
        sdk.enterBackground()
        world.advance(seconds: 200)
        sdk.enterForeground()
        #expect(world.server.checks == 2)
    }

    @Test func aClockSetForwardBetweenRunsMakesTheAnswerStaleNeverFresh() {
        let world = World()
        let first = world.sdk()
        first.start()
        first.shutdown()
        world.device.setTime(world.device.now + Self.hours2)
        world.setOnline(false, first)
        let second = world.sdk()
        second.start()
        world.online.withLock { $0 = true }
        second.networkReachabilityChanged(isReachable: true)
        #expect(world.server.checks == 2, "the launch check missed offline runs: the answer looks 2 h old")
    }

    // MARK: - Polling

    @Test func pollingKeepsItsTrueMinuteWhenTheClockIsSetBackOrForward() {
        for jump in [-Self.hours2, Self.hours2] {
            let world = World()
            world.server.update { $0.lifetime = 60 }
            let sdk = world.sdk()
            sdk.start()
            world.advance(seconds: 30)
            world.device.setTime(world.device.now + jump)
            world.advance(seconds: 29)
            #expect(world.server.checks == 1, "jump \(jump): no poll early")
            world.advance(seconds: 1)
            #expect(world.server.checks == 2, "jump \(jump): the poll one true minute after the check")
            world.advance(seconds: 600)
            #expect(world.server.checks == 12, "jump \(jump): and every minute after")
            #expect(sdk.state.polling)
        }
    }

    // MARK: - The 7-day drop

    @Test func theSevenDayDropCountsTrueTimeWithinARunWhicheverWayTheClockMoves() {
        for jump in [-86_400.0, 8 * 86_400.0] {
            let world = World()
            world.server.update { $0.optionalUpdate = ["rule": "o", "kind": "optional", "below": "2.5.0"] }
            let sdk = world.sdk()
            sdk.start()
            world.setOnline(false, sdk)
            world.advance(seconds: 86_400)
            world.device.setTime(world.device.now + jump)
            #expect(sdk.state.screen == .optionalUpdate, "jump \(jump): one true day old")
            world.advance(seconds: 6 * 86_400 - 1)
            #expect(sdk.state.screen == .optionalUpdate, "jump \(jump)")
            world.advance(seconds: 1)
            #expect(sdk.state.screen == .none, "jump \(jump): dropped 7 true days after the check")
        }
    }

    /// After a restart the uptime says nothing: a last success in the device's future has an
    /// unknown age, so the optional update is not shown (it would otherwise live for ever);
    /// the next successful check brings it back.
    @Test func aLastSuccessInTheDevicesFutureAfterARestartDoesNotKeepTheOptionalUpdate() {
        let world = World()
        world.server.update { $0.optionalUpdate = ["rule": "o", "kind": "optional", "below": "2.5.0"] }
        let first = world.sdk()
        first.start()
        first.shutdown()
        world.device.setTime(world.device.now - Self.hours2)
        world.online.withLock { $0 = false }
        let second = world.sdk()
        second.start()
        #expect(second.state.screen == .none)
        world.online.withLock { $0 = true }
        second.networkReachabilityChanged(isReachable: true)
        #expect(second.state.screen == .optionalUpdate)
    }

    // MARK: - Required stays required

    @Test func aDeadlineThatPassedKeepsBlockingWhenTheClockIsSetBackAfterwards() {
        let world = World()
        world.server.update {
            $0.optionalUpdate = [
                "rule": "soon", "kind": "recommended", "below": "2.4.0", "becomes_required_on": world.at(3600),
            ]
        }
        let config = world.config(platform: .android)
        let sdk = world.sdk(config)
        sdk.start()
        world.setOnline(false, sdk)
        world.advance(seconds: 3601)
        #expect(sdk.state.screen == .requiredUpdate)
        world.device.setTime(world.device.now - Self.hours2)
        #expect(sdk.state.screen == .requiredUpdate, "within the run")
        sdk.shutdown()
        world.device.setTime(world.device.now - Self.hours2)
        let relaunched = world.sdk(config)
        relaunched.start()
        #expect(relaunched.state.screen == .requiredUpdate, "after a restart, with the clock 4 h back")
    }

    // MARK: - Maintenance (the server-time correction)

    @Test func aWindowStartsAndEndsOnTrueTimeOfflineWhenTheClockIsSetWithinARun() {
        let world = World()
        world.server.update {
            $0.maintenance = [["rule": "m", "starts_at": world.at(3600), "ends_at": world.at(7200)]]
        }
        let sdk = world.sdk()
        sdk.start()
        world.setOnline(false, sdk)
        world.advance(seconds: 600)
        world.device.setTime(world.device.now - Self.hours2)
        world.advance(seconds: 2999)
        #expect(sdk.state.screen == .none)
        world.advance(seconds: 1)
        #expect(sdk.state.screen == .maintenance, "starts at its true time, although the clock says 2 h earlier")
        world.device.setTime(world.device.now + 4 * Self.hours2)
        #expect(sdk.state.screen == .maintenance, "a clock set forward does not end it early")
        world.advance(seconds: 3600)
        #expect(sdk.state.screen == .none)
    }

    // MARK: - Later

    /// Later lasts until the next launch: no time is measured, so no clock change can end it
    /// early or make it last longer.
    @Test func laterLastsUntilTheNextLaunchWhateverTheClockDoes() {
        let world = World()
        world.server.update { $0.optionalUpdate = ["rule": "o", "kind": "optional", "below": "2.5.0"] }
        let sdk = world.sdk()
        sdk.start()
        sdk.later()
        world.device.setTime(world.device.now + 30 * 86_400)
        #expect(sdk.state.screen == .none)
        world.device.setTime(world.device.now - 60 * 86_400)
        #expect(sdk.state.screen == .none)
        sdk.shutdown()
        world.device.setTime(world.device.now + 30 * 86_400)
        let next = world.sdk()
        next.start()
        #expect(next.state.screen == .optionalUpdate)
    }
}

/// The virtual clocks' fast path: the SDK reads them in milliseconds, and the timer it sets
/// after every check needs no allocation of its own.
@Suite struct MillisecondClockTests {
    /// The timer is the scheduler's own handle (a class the SDK holds in two words): cancelling
    /// it stops the work, and cancelling it after the work ran does nothing.
    @Test func aManualClockTimerIsItsSchedulersHandleAndCancels() {
        let clock = ManualDeviceClock(now: Date(timeIntervalSince1970: 1_796_209_200))
        let fired = Fired()
        let cancelled = clock.schedule(afterMilliseconds: 100) { fired.mark() }
        #expect(MemoryLayout.size(ofValue: cancelled) == 2 * MemoryLayout<Int>.size)
        cancelled.cancel()
        clock.advance(by: .milliseconds(200))
        #expect(!fired.value)
        let ran = clock.schedule(afterMilliseconds: 100) { fired.mark() }
        clock.advance(by: .milliseconds(100))
        ran.cancel()
        #expect(fired.value)
        #expect(clock.nextTimer == nil)
    }

    @Test func theMillisecondReadingsAreTheDateAndDurationOnes() {
        let clock = ManualDeviceClock(now: Date(timeIntervalSince1970: 1_796_209_200.5))
        clock.advance(by: .milliseconds(1_250))
        #expect(clock.uptimeMilliseconds == 1_250)
        #expect(clock.uptime == .milliseconds(clock.uptimeMilliseconds))
        #expect(clock.instant.millisecondsSinceEpoch == 1_796_209_201_750)
        #expect(clock.now == Date(timeIntervalSince1970: 1_796_209_201.75))
        let fired = Fired()
        clock.schedule(afterMilliseconds: 500) { fired.mark() }
        clock.advance(by: .milliseconds(499))
        #expect(!fired.value)
        clock.advance(by: .milliseconds(1))
        #expect(fired.value)
    }

    private final class Fired: @unchecked Sendable {
        private(set) var value = false
        func mark() { value = true }
    }
}
