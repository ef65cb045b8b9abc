import Clock
import Foundation
import JSON
import LerixSDK
import Testing

/// Spec "The Lerix SDK switch".
@Suite struct SDKSwitchTests {
    @Test func pausedModulesSendNothingAndTheirQueueIsSentAfterTheEndTime() {
        let world = World()
        world.server.update { $0.sdkSwitch = [["rule": "s", "modules": ["analytics"], "ends_at": world.at(600)]] }
        let sdk = world.sdk()
        sdk.start()
        sdk.track(.analytics, [1, 2, 3])
        sdk.track(.errors, ["e": 1])
        #expect(world.server.ingest == ["errors": 1])
        #expect(sdk.state.queued == [.analytics: 3])
        world.advance(seconds: 600)
        #expect(world.server.ingest == ["errors": 1, "analytics": 3])
        #expect(sdk.state.queued.isEmpty)
        #expect(sdk.statistics.sent == [.errors: 1, .analytics: 3])
    }

    @Test func queuedItemsStayOnTheDeviceAcrossARestart() {
        let world = World()
        world.server.update { $0.sdkSwitch = [["rule": "s", "modules": ["all"], "ends_at": world.at(600)]] }
        let sdk = world.sdk()
        sdk.start()
        sdk.track(.surveys, [1, 2])
        sdk.shutdown()
        world.advance(seconds: 601)
        world.server.update { $0.sdkSwitch = [] }
        let next = world.sdk()
        #expect(next.state.queued == [.surveys: 2])
        next.start()
        #expect(world.server.ingest == ["surveys": 2])
    }

    @Test func pushTokenRegistrationIsPausedByTheSwitch() {
        let world = World()
        world.server.update {
            $0.sdkSwitch = [["rule": "s", "modules": ["push_token_registration"], "ends_at": world.at(120)]]
        }
        let sdk = world.sdk(world.config(pushToken: "tok-1"))
        sdk.start()
        #expect(world.server.contents.withLock { $0.tokens } == [], "paused by the first answer")
        sdk.shutdown()
        let next = world.sdk(world.config(pushToken: "tok-1"))
        next.start()
        #expect(world.server.contents.withLock { $0.tokens } == [], "paused by the saved switch")
        world.advance(seconds: 120)
        #expect(world.server.contents.withLock { $0.tokens } == ["tok-1"])
    }

    @Test func firstLaunchWithNothingSavedRegistersTheTokenOnlyAfterTheFirstAnswer() {
        let world = World()
        world.online.withLock { $0 = false }
        let sdk = world.sdk(world.config(pushToken: "tok-1"))
        sdk.start()
        sdk.track(.analytics, [1])
        #expect(world.transport.requests.isEmpty, "offline: nothing, and nothing known about switches")
        world.online.withLock { $0 = true }
        world.server.update { $0.status = 503 }
        sdk.networkReachabilityChanged(isReachable: true)
        #expect(world.transport.requests.count == 1, "the missed check, which fails: the token and items still wait")
        #expect(world.server.contents.withLock { $0.tokens } == [])
        world.server.update { $0.status = 200 }
        sdk.didReceiveSilentPush()
        #expect(world.checkRequests.count == 2)
        #expect(world.server.contents.withLock { $0.tokens } == ["tok-1"])
        #expect(world.server.ingest == ["analytics": 1])
        let urls = world.transport.requests.map(\.url)
        #expect(urls.firstIndex { $0.contains("/push-tokens/") } ?? 0 > 1, "registered after the answer, not before")
    }

    @Test func withReleaseControlOffNothingWaitsForAnAnswerThatNeverComes() {
        let world = World()
        let sdk = world.sdk(world.config(enabled: false, pushToken: "tok-1"))
        sdk.start()
        #expect(world.checkRequests.isEmpty)
        #expect(world.server.contents.withLock { $0.tokens } == ["tok-1"])
    }

    @Test func releaseControlCheckKeepsRunningWhileTheSwitchApplies() {
        let world = World()
        world.server.update {
            $0.lifetime = 60
            $0.sdkSwitch = [["rule": "s", "modules": ["all"], "ends_at": world.at(3600)]]
        }
        let sdk = world.sdk()
        sdk.start()
        world.advance(seconds: 300)
        #expect(world.checkRequests.count == 6)
        world.server.update { $0.sdkSwitch = [] }
        sdk.track(.tracing, 1)
        #expect(world.server.ingest.isEmpty)
        world.advance(seconds: 60)
        #expect(world.server.ingest == ["tracing": 1], "lifted by a check: the queue goes out")
    }

    @Test func disabledReleaseControlStopsCheckingButASavedSwitchStillApplies() {
        let world = World()
        world.server.update { $0.sdkSwitch = [["rule": "s", "modules": ["errors"], "ends_at": world.at(900)]] }
        let first = world.sdk()
        first.start()
        first.shutdown()
        let disabled = world.sdk(world.config(enabled: false))
        disabled.start()
        disabled.enterForeground()
        disabled.didReceiveSilentPush()
        disabled.refresh { _ in }
        #expect(world.checkRequests.count == 1)
        #expect(disabled.isPaused(.errors))
        disabled.track(.errors, 1)
        #expect(world.server.ingest.isEmpty)
        world.advance(seconds: 900)
        #expect(!disabled.isPaused(.errors))
        #expect(world.server.ingest == ["errors": 1])
    }
}
