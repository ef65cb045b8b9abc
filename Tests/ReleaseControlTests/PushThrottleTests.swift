import Clock
import Testing

@testable import ReleaseControl

@Suite struct PushThrottleTests {
    let t = Fixture.at

    @Test func firstBlockingChangeIsSentAtOnce() {
        var throttle = PushThrottle()
        #expect(throttle.blockingChange(id: 1, now: t(0)) == [.sendNow(changeIds: [1])])
        #expect(throttle.lastPushAt == t(0))
    }

    @Test func burstWithinAMinuteIsCombinedIntoOnePushSixtySecondsAfterTheLast() {
        var throttle = PushThrottle()
        _ = throttle.blockingChange(id: 1, now: t(0))
        #expect(throttle.blockingChange(id: 2, now: t(5)) == [.wakeAt(t(60))])
        #expect(throttle.blockingChange(id: 3, now: t(30)) == [])
        #expect(throttle.blockingChange(id: 4, now: t(59)) == [])
        #expect(throttle.timerFired(now: t(60)) == [.sendNow(changeIds: [2, 3, 4])])
        // The next change within 60 s of that push waits for t(120).
        #expect(throttle.blockingChange(id: 5, now: t(61)) == [.wakeAt(t(120))])
        #expect(throttle.timerFired(now: t(120)) == [.sendNow(changeIds: [5])])
    }

    @Test func changeExactlySixtySecondsAfterThePushGoesAtOnce() {
        var throttle = PushThrottle()
        _ = throttle.blockingChange(id: 1, now: t(0))
        #expect(throttle.blockingChange(id: 2, now: t(60)) == [.sendNow(changeIds: [2])])
        #expect(throttle.blockingChange(id: 3, now: Fixture.t0.adding(milliseconds: 119_999)) == [.wakeAt(t(120))])
    }

    @Test func timerFiringWithNothingPendingOrEarlyNeverSends() {
        var throttle = PushThrottle()
        #expect(throttle.timerFired(now: t(0)) == [])
        _ = throttle.blockingChange(id: 1, now: t(0))
        #expect(throttle.timerFired(now: t(60)) == [])
        _ = throttle.blockingChange(id: 2, now: t(70))  // at once: 70 s after the push
        #expect(throttle.blockingChange(id: 3, now: t(80)) == [.wakeAt(t(130))])
        #expect(throttle.timerFired(now: t(100)) == [.wakeAt(t(130))])
        #expect(throttle.timerFired(now: t(130)) == [.sendNow(changeIds: [3])])
        #expect(throttle.timerFired(now: t(131)) == [])
    }

    @Test func lateTimerAfterAClockJumpSendsOnceAtTheFiredTime() {
        var throttle = PushThrottle()
        _ = throttle.blockingChange(id: 1, now: t(0))
        _ = throttle.blockingChange(id: 2, now: t(10))
        // The clock jumps five windows ahead; the timer fires late, once.
        #expect(throttle.timerFired(now: t(300)) == [.sendNow(changeIds: [2])])
        #expect(throttle.lastPushAt == t(300))
        #expect(throttle.timerFired(now: t(300)) == [])
        #expect(throttle.blockingChange(id: 3, now: t(330)) == [.wakeAt(t(360))])
    }

    @Test func changeArrivingAfterAnOverdueTimerSendsEverythingAtOnce() {
        var throttle = PushThrottle()
        _ = throttle.blockingChange(id: 1, now: t(0))
        _ = throttle.blockingChange(id: 2, now: t(10))
        #expect(throttle.blockingChange(id: 3, now: t(200)) == [.sendNow(changeIds: [2, 3])])
        #expect(throttle.timerFired(now: t(200)) == [])
    }

    @Test func projectsAreThrottledIndependently() {
        var a = PushThrottle()
        var b = PushThrottle()
        #expect(a.blockingChange(id: 1, now: t(0)) == [.sendNow(changeIds: [1])])
        #expect(b.blockingChange(id: 1, now: t(10)) == [.sendNow(changeIds: [1])])
        #expect(a.blockingChange(id: 2, now: t(20)) == [.wakeAt(t(60))])
        #expect(b.blockingChange(id: 2, now: t(20)) == [.wakeAt(t(70))])
        #expect(a.timerFired(now: t(60)) == [.sendNow(changeIds: [2])])
        #expect(b.timerFired(now: t(60)) == [.wakeAt(t(70))])
        #expect(b.timerFired(now: t(70)) == [.sendNow(changeIds: [2])])
    }
}

@Suite struct PushThrottleClockSetBackTests {
    let t = Fixture.at

    @Test func clockSetBackNeverDelaysAPushBeyondSixtySecondsFromTheChange() {
        var throttle = PushThrottle()
        _ = throttle.blockingChange(id: 1, now: t(3600))
        // The manual clock is set back an hour: the combined push is due 60 s from now.
        #expect(throttle.blockingChange(id: 2, now: t(0)) == [.wakeAt(t(60))])
        #expect(throttle.timerFired(now: t(60)) == [.sendNow(changeIds: [2])])
    }

    @Test func clockSetBackWhileWaitingBringsTheWakeForward() {
        var throttle = PushThrottle()
        _ = throttle.blockingChange(id: 1, now: t(3600))
        #expect(throttle.blockingChange(id: 2, now: t(3610)) == [.wakeAt(t(3660))])
        #expect(throttle.blockingChange(id: 3, now: t(100)) == [.wakeAt(t(160))])
        #expect(throttle.timerFired(now: t(160)) == [.sendNow(changeIds: [2, 3])])
    }
}
