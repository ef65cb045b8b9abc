import Testing

@testable import HTTPServer

/// The connection's life as phases: each way from open to closed, and the asks that change nothing.
@Suite struct ConnectionLifecycleTests {
    @Test func anOpenConnectionStaysOpenWhenItsOutputIsWritten() {
        var life = ConnectionLifecycle()
        let step1 = life.outputFlushed(tls: false, reading: true)
        #expect(step1 == .none)
        #expect(life.phase == .open && !life.isClosed && !life.isLingering)
    }

    @Test func aPlainConnectionClosesOnceItsOutputIsWritten() {
        var life = ConnectionLifecycle()
        let changed2 = life.closeAfterFlush(linger: false)
        #expect(changed2)
        #expect(life.phase == .closingAfterFlush(linger: false, closeNotifySent: false))
        let step3 = life.outputFlushed(tls: false, reading: true)
        #expect(step3 == .close)
        life.closed()
        #expect(life.isClosed)
        let step4 = life.outputFlushed(tls: false, reading: true)
        #expect(step4 == .none)
    }

    @Test func tlsSaysCloseNotifyOnceBeforeClosing() {
        var life = ConnectionLifecycle()
        life.closeAfterFlush(linger: false)
        let step5 = life.outputFlushed(tls: true, reading: true)
        #expect(step5 == .sendCloseNotify)
        #expect(life.phase == .closingAfterFlush(linger: false, closeNotifySent: true))
        let step6 = life.outputFlushed(tls: true, reading: true)
        #expect(step6 == .close, "close_notify is said once")
    }

    @Test func aRejectedUploadLingersWhileThePeerStillSends() {
        var life = ConnectionLifecycle()
        life.closeAfterFlush(linger: true)
        let step7 = life.outputFlushed(tls: true, reading: true)
        #expect(step7 == .sendCloseNotify)
        let step8 = life.outputFlushed(tls: true, reading: true)
        #expect(step8 == .linger)
        #expect(life.phase == .lingering && life.isLingering)
        let changed9 = life.closeAfterFlush(linger: false)
        #expect(!changed9, "a lingering connection is already written out")
        let step10 = life.outputFlushed(tls: true, reading: true)
        #expect(step10 == .none)
    }

    @Test func aPeerThatEndedItsSideIsNotLingeredFor() {
        var life = ConnectionLifecycle()
        life.closeAfterFlush(linger: true)
        let step11 = life.outputFlushed(tls: false, reading: false)
        #expect(step11 == .close)
    }

    @Test func aLaterAskToCloseKeepsAnEarlierAskToLinger() {
        var life = ConnectionLifecycle()
        life.closeAfterFlush(linger: true)
        life.closeAfterFlush(linger: false)
        #expect(life.phase == .closingAfterFlush(linger: true, closeNotifySent: false))
        life.closeAfterFlush(linger: true)
        let step12 = life.outputFlushed(tls: true, reading: true)
        #expect(step12 == .sendCloseNotify)
        life.closeAfterFlush(linger: false)
        #expect(life.phase == .closingAfterFlush(linger: true, closeNotifySent: true), "close_notify is not said twice")
    }

    @Test func aClosedConnectionIgnoresAsksToClose() {
        var life = ConnectionLifecycle()
        life.closed()
        let changed13 = life.closeAfterFlush(linger: true)
        #expect(!changed13)
        #expect(life.phase == .closed)
    }
}
