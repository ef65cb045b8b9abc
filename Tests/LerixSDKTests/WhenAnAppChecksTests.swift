import Clock
import Foundation
import JSON
import LerixSDK
import Synchronization
import Testing

/// Spec "When an app checks": one test per row, plus the lifetime and ETag rules.
@Suite struct WhenAnAppChecksTests {
    @Test func appStartAppliesSavedAnswerBeforeAnyRequest() throws {
        let world = World()
        world.server.update { $0.requiredUpdate = ["rule": "r1", "below": "2.4.0"] }
        let first = world.sdk()
        first.start()
        first.shutdown()
        world.transport.clearRequests()

        let second = world.sdk()
        let seen = Locked<[(LerixState.Screen, Int)]>([])
        let transport = world.transport
        let token = second.observe { state in seen.withLock { $0.append((state.screen, transport.requests.count)) } }
        second.start()
        let firstSeen = try #require(seen.withLock { $0.first })
        #expect(firstSeen.0 == .requiredUpdate)
        #expect(firstSeen.1 == 0)
        #expect(world.checkRequests.count == 1)
        token.cancel()
    }

    @Test func appStartThenFetchesAFreshAnswer() {
        let world = World()
        world.server.update { $0.maintenance = [["rule": "m", "starts_at": world.at(-60), "ends_at": world.at(600)]] }
        let sdk = world.sdk()
        #expect(sdk.state.screen == .none)
        sdk.start()
        #expect(world.checkRequests.count == 1)
        #expect(sdk.state.screen == .maintenance)
        let url = world.checkRequests.first?.url ?? ""
        #expect(
            url
                == "http://lerix.test/v1/projects/demo/release-control?platform=ios&version=2.3.0&build=41&sdk=swift&sdk_version=1.4.0"
        )
    }

    /// Every attribute is percent-encoded but the unreserved characters (RFC 3986), whatever else it holds.
    @Test func theCheckURLEncodesEveryReservedCharacter() {
        let world = World()
        var configuration = world.config(version: "2.3.0 beta+1", build: "41/ü")
        configuration.project = "my proj"
        let sdk = world.sdk(configuration)
        sdk.start()
        #expect(
            world.checkRequests.first?.url
                == "http://lerix.test/v1/projects/my%20proj/release-control?platform=ios&version=2.3.0%20beta%2B1&build=41%2F%C3%BC&sdk=swift&sdk_version=1.4.0"
        )
    }

    @Test func backToForegroundFetchesOnlyIfOlderThanLifetime() {
        let world = World()
        let sdk = world.sdk()
        sdk.start()
        sdk.enterBackground()
        world.advance(seconds: 200)
        sdk.enterForeground()
        #expect(world.checkRequests.count == 1, "a 300 s answer is still fresh after 200 s")
        sdk.enterBackground()
        world.advance(seconds: 100)
        sdk.enterForeground()
        #expect(world.checkRequests.count == 2)
    }

    @Test func onTheWebBackOnlineFetchesIfTheAnswerIsOlderThanItsLifetime() {
        let world = World()
        let web = world.sdk(world.config(platform: .web))
        web.start()
        world.setOnline(false, web)
        world.advance(seconds: 100)
        world.setOnline(true, web)
        #expect(world.checkRequests.count == 1, "still fresh")
        world.setOnline(false, web)
        world.advance(seconds: 200)
        world.setOnline(true, web)
        #expect(world.checkRequests.count == 2)
    }

    @Test func onMobileBackOnlineFetchesOnlyWhenACheckWasMissed() {
        let world = World()
        let phone = world.sdk()
        phone.start()
        world.setOnline(false, phone)
        world.advance(seconds: 400)
        world.setOnline(true, phone)
        #expect(world.checkRequests.count == 1, "nothing was due: the next foreground checks")
        world.setOnline(false, phone)
        phone.didReceiveSilentPush()
        world.setOnline(true, phone)
        #expect(world.checkRequests.count == 2, "the push that arrived offline is checked now")
    }

    @Test func inForegroundPollsEvery60SecondsWhileLifetimeIs60() {
        let world = World()
        world.server.update { $0.lifetime = 60 }
        let sdk = world.sdk()
        sdk.start()
        #expect(sdk.state.polling)
        world.advance(seconds: 59)
        #expect(world.checkRequests.count == 1)
        world.advance(seconds: 1)
        #expect(world.checkRequests.count == 2)
        world.advance(seconds: 600)
        #expect(world.checkRequests.count == 12)
        sdk.enterBackground()
        world.advance(seconds: 600)
        #expect(world.checkRequests.count == 12, "no polling in the background")
        #expect(!sdk.state.polling)
    }

    @Test func withLifetime300AppsDoNotPoll() {
        let world = World()
        let sdk = world.sdk()
        sdk.start()
        world.advance(seconds: 3600)
        #expect(world.checkRequests.count == 1)
        #expect(!sdk.state.polling)
    }

    @Test func pollingStopsWhenTheLifetimeGoesBackTo300() {
        let world = World()
        world.server.update { $0.lifetime = 60 }
        let sdk = world.sdk()
        sdk.start()
        world.advance(seconds: 60)
        world.server.update { $0.lifetime = 300 }
        world.advance(seconds: 60)
        #expect(world.checkRequests.count == 3)
        world.advance(seconds: 1800)
        #expect(world.checkRequests.count == 3)
    }

    @Test func silentPushFetchesRightAwayEvenInTheBackground() {
        let world = World()
        let sdk = world.sdk()
        sdk.start()
        sdk.enterBackground()
        world.server.update { $0.requiredUpdate = ["rule": "r", "below": "9.0.0"] }
        sdk.didReceiveSilentPush()
        #expect(world.checkRequests.count == 2)
        #expect(sdk.state.screen == .requiredUpdate)
    }

    @Test func silentPushDoesNothingOnTheWeb() {
        let world = World()
        let sdk = world.sdk(world.config(platform: .web))
        sdk.start()
        sdk.didReceiveSilentPush()
        #expect(world.checkRequests.count == 1)
    }

    @Test func refreshFetchesRightAwayAndReturnsTheNewState() async {
        let world = World()
        let sdk = world.sdk()
        await sdk.start()
        world.server.update { $0.optionalUpdate = ["rule": "o", "kind": "optional", "below": "2.5.0"] }
        let state = await sdk.refresh()
        #expect(state.screen == .optionalUpdate)
        #expect(world.checkRequests.count == 2)
        let answered = Locked<LerixState?>(nil)
        sdk.refresh { state in answered.withLock { $0 = state } }
        #expect(answered.withLock { $0?.optionalUpdate?.rule } == "o")
    }

    @Test func refreshOfflineAnswersAtOnceWithTheSavedState() {
        let world = World()
        let sdk = world.sdk()
        sdk.start()
        world.setOnline(false, sdk)
        let answered = Locked(false)
        sdk.refresh { _ in answered.withLock { $0 = true } }
        #expect(answered.withLock { $0 })
        #expect(world.checkRequests.count == 1)
    }

    @Test func unchangedAnswerSendsItsETagAndGets304ThatRenewsLifetimeAndClock() throws {
        let world = World()
        world.server.update { $0.lifetime = 60 }
        let sdk = world.sdk()
        sdk.start()
        let etag = try #require(sdk.state.etag)
        world.server.update { $0.serverSkewSeconds = 30 }
        world.advance(seconds: 60)
        #expect(world.checkRequests.last?.header("If-None-Match") == etag)
        #expect(sdk.statistics.notModified == 1)
        #expect(sdk.state.lastSuccess == world.device.now)
        // The 304's Lerix-Server-Time is the new clock reference: a window 20 s away by the
        // server's (skewed) clock starts 20 s from now, not 50.
        world.server.update {
            $0.maintenance = [
                [
                    "rule": "m", "starts_at": .string(world.trueNow.adding(seconds: 50).rfc3339),
                    "ends_at": .string(world.trueNow.adding(seconds: 500).rfc3339),
                ]
            ]
        }
        sdk.refresh { _ in }
        world.advance(seconds: 20)
        #expect(sdk.state.screen == .maintenance)
    }

    @Test func lifetimeFromA304CacheControlChangesPolling() {
        let world = World()
        world.server.update { $0.lifetime = 300 }
        let sdk = world.sdk()
        sdk.start()
        world.server.update { $0.lifetime = 60 }  // same state, so the next check is a 304
        sdk.refresh { _ in }
        #expect(sdk.statistics.notModified == 1)
        #expect(sdk.state.polling)
    }

    @Test func clockCorrectionFromServerTimeIsStored() {
        let world = World(deviceOffsetSeconds: -3600)
        let sdk = world.sdk()
        sdk.start()
        sdk.shutdown()
        let saved = SavedAnswer(encoded: world.storage.load(ReleaseControlMachine.storageKey) ?? [])
        #expect(saved.serverOffsetMilliseconds == 3_600_000)
    }

    // MARK: - Overlapping checks

    /// What every iOS launch does: `start()` then `enterForeground()` while the launch check is
    /// still on the network. The foreground's need (a current answer) is the launch check's.
    @Test func startThenForegroundWhileTheLaunchCheckIsInFlightSendsOneCheck() {
        let world = World()
        let held = HeldTransport { world.server.answer($0) }
        let sdk = Lerix(configuration: world.config(), clock: world.device, transport: held, storage: world.storage)
        sdk.start()
        sdk.enterForeground()
        sdk.enterBackground()
        sdk.enterForeground()
        #expect(held.waiting == 1)
        held.releaseAll()
        #expect(world.server.checks == 1)
        #expect(sdk.statistics.checks == 1)
        #expect(sdk.state.lastSuccess != nil)
    }

    /// A push or `refresh()` during a check may announce a change made after it left: exactly
    /// one more check follows, however many arrive.
    @Test func pushesAndRefreshesDuringACheckAddOneFollowUpCheck() {
        let world = World()
        let held = HeldTransport { world.server.answer($0) }
        let sdk = Lerix(configuration: world.config(), clock: world.device, transport: held, storage: world.storage)
        sdk.start()
        sdk.didReceiveSilentPush()
        sdk.didReceiveSilentPush()
        sdk.refresh { _ in }
        #expect(held.waiting == 1)
        held.releaseAll()
        #expect(world.server.checks == 2)
    }

    @Test func aPollDueWhileACheckIsInFlightJoinsIt() {
        let world = World()
        world.server.update { $0.lifetime = 60 }
        let held = HeldTransport { world.server.answer($0) }
        let sdk = Lerix(configuration: world.config(), clock: world.device, transport: held, storage: world.storage)
        sdk.start()
        held.releaseAll()
        world.advance(seconds: 60)
        #expect(held.waiting == 1, "the poll")
        sdk.enterForeground()
        held.releaseAll()
        #expect(world.server.checks == 2)
    }

    // MARK: - Device clock set back between runs

    /// The clock set back two hours between runs and the launch check fails: the saved answer's
    /// receipt lies in the device's future. That age cannot be right, so the answer is stale
    /// and every return to the foreground checks, and sees a required update made meanwhile.
    @Test func aReceiptInTheDevicesFutureIsStaleAfterTheClockIsSetBackBetweenRuns() {
        let world = World()
        let first = world.sdk()
        first.start()
        first.shutdown()
        world.device.setTime(world.device.now - 7200)
        world.server.update { $0.status = 503 }
        let second = world.sdk()
        second.start()
        #expect(second.state.lastCheckFailure?.status == 503)
        world.server.update {
            $0.status = 200
            $0.requiredUpdate = ["rule": "r", "below": "9.0.0"]
        }
        second.enterBackground()
        world.advance(seconds: 60)
        second.enterForeground()
        #expect(world.server.checks == 3)
        #expect(second.state.screen == .requiredUpdate)
    }
}
