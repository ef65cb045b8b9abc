import Clock
import Foundation
import JSON
import LerixSDK
import Testing

/// Spec "Offline behaviour": every cell of the table and the two rules below it.
@Suite struct OfflineBehaviourTests {
    @Test func requiredUpdateKeepsBlockingOfflineAndWhenOldUntilASuccessfulCheckSaysOtherwise() {
        let world = World()
        world.server.update { $0.requiredUpdate = ["rule": "r", "below": "2.4.0"] }
        let sdk = world.sdk()
        sdk.start()
        world.setOnline(false, sdk)
        world.advance(seconds: 30 * 86_400)
        sdk.shutdown()
        let relaunched = world.sdk()
        relaunched.start()
        #expect(relaunched.state.screen == .requiredUpdate)
        world.online.withLock { $0 = true }
        world.server.update {
            $0.status = 503
            $0.requiredUpdate = .null
        }
        relaunched.networkReachabilityChanged(isReachable: true)
        #expect(relaunched.state.screen == .requiredUpdate, "a failed check lifts nothing")
        world.server.update { $0.status = 200 }
        relaunched.refresh { _ in }
        #expect(relaunched.state.screen == .none)
    }

    @Test func optionalUpdateShownFromSavedAnswerOfflineRespectingLaterAndSkip() {
        let world = World()
        world.server.update { $0.optionalUpdate = ["rule": "o1", "kind": "optional", "below": "2.5.0"] }
        let sdk = world.sdk()
        sdk.start()
        world.setOnline(false, sdk)
        #expect(sdk.state.screen == .optionalUpdate)
        sdk.later()
        #expect(sdk.state.screen == .none)
        sdk.shutdown()
        let next = world.sdk()
        next.start()
        #expect(next.state.screen == .optionalUpdate, "Later lasts until the next launch")
        next.skip()
        next.shutdown()
        let third = world.sdk()
        third.start()
        #expect(third.state.screen == .none, "Skip hides that rule for good")
        #expect(third.state.optionalUpdate?.rule == "o1")
    }

    @Test func optionalUpdateDropped7DaysAfterLastSuccessfulCheck() {
        let world = World()
        world.server.update { $0.optionalUpdate = ["rule": "o", "kind": "optional", "below": "2.5.0"] }
        let sdk = world.sdk()
        sdk.start()
        world.setOnline(false, sdk)
        world.advance(seconds: 7 * 86_400 - 1)
        #expect(sdk.state.screen == .optionalUpdate)
        world.advance(seconds: 1)
        #expect(sdk.state.screen == .none)
        #expect(sdk.state.optionalUpdate == nil)
    }

    @Test func optionalUpdateDropped7DaysAfterLastSuccessfulCheckAcrossARestart() {
        let world = World()
        world.server.update {
            $0.lifetime = 60
            $0.optionalUpdate = ["rule": "o", "kind": "optional", "below": "2.5.0"]
        }
        let sdk = world.sdk()
        sdk.start()
        world.advance(seconds: 7200)  // two hours of 304s renew the answer in memory
        let lastSuccess = sdk.state.lastSuccess
        sdk.shutdown()
        world.online.withLock { $0 = false }
        let relaunched = world.sdk()
        relaunched.start()
        #expect(relaunched.state.lastSuccess == lastSuccess, "the last renewal was written when the app ended")
        world.advance(seconds: 7 * 86_400 - 1)
        #expect(relaunched.state.screen == .optionalUpdate)
        world.advance(seconds: 1)
        #expect(relaunched.state.screen == .none)
    }

    @Test func maintenanceAppliesFromStartToEndByCorrectedClockAndLiftsOffline() {
        let world = World(deviceOffsetSeconds: 3600)  // the device clock is an hour fast
        world.server.update {
            $0.maintenance = [
                ["rule": "m", "starts_at": world.at(600), "ends_at": world.at(1200), "message": "upgrade"]
            ]
        }
        let sdk = world.sdk()
        sdk.start()
        world.setOnline(false, sdk)
        #expect(sdk.state.screen == .none)
        #expect(sdk.state.maintenance.count == 1)
        world.advance(seconds: 599)
        #expect(sdk.state.screen == .none)
        world.advance(seconds: 1)
        #expect(sdk.state.screen == .maintenance)
        world.advance(seconds: 599)
        #expect(sdk.state.screen == .maintenance)
        world.advance(seconds: 1)
        #expect(sdk.state.screen == .none)
        #expect(sdk.state.maintenance.isEmpty)
    }

    @Test func sdkSwitchAppliesUntilItsEndTimeOffline() {
        let world = World(deviceOffsetSeconds: -7200)
        world.server.update { $0.sdkSwitch = [["rule": "s", "modules": ["analytics"], "ends_at": world.at(900)]] }
        let sdk = world.sdk()
        sdk.start()
        world.setOnline(false, sdk)
        #expect(sdk.isPaused(.analytics))
        #expect(!sdk.isPaused(.errors))
        world.advance(seconds: 899)
        #expect(sdk.state.pausedModules == [.analytics])
        world.advance(seconds: 1)
        #expect(sdk.state.pausedModules.isEmpty)
    }

    @Test func savedUpdateBelongsToOneAppVersionAndBuild() {
        let world = World()
        world.server.update { $0.requiredUpdate = ["rule": "r", "below": "2.4.0"] }
        let sdk = world.sdk()
        sdk.start()
        sdk.shutdown()
        world.online.withLock { $0 = false }
        let sameVersionNewBuild = world.sdk(world.config(version: "2.3.0", build: "42"))
        sameVersionNewBuild.start()
        #expect(sameVersionNewBuild.state.screen == .none, "a new build is never blocked by its old answer")
        sameVersionNewBuild.shutdown()
        world.online.withLock { $0 = true }
        let online = world.sdk(world.config(version: "2.3.0", build: "42"))
        online.start()
        #expect(online.state.screen == .requiredUpdate)
        #expect(world.checkRequests.last?.header("If-None-Match") == nil, "the dropped answer's ETag is not reused")
    }

    @Test(arguments: [
        (Platform.android, Flavor.native, true), (.ios, .flutter, true), (.web, .flutter, true),
        (.ios, .native, false), (.macos, .native, false), (.web, .native, false),
    ])
    func deadlinesPassOfflineOnAndroidAndFlutterOnly(platform: Platform, flavor: Flavor, turnsRequired: Bool) {
        let world = World()
        world.server.update {
            $0.optionalUpdate = [
                "rule": "rec", "kind": "recommended", "below": "2.5.0", "becomes_required_on": world.at(3600),
            ]
        }
        let sdk = world.sdk(world.config(platform: platform, flavor: flavor))
        sdk.start()
        world.setOnline(false, sdk)
        #expect(sdk.state.screen == .optionalUpdate)
        world.advance(seconds: 3600)
        #expect(sdk.state.screen == (turnsRequired ? .requiredUpdate : .optionalUpdate))
        #expect((sdk.state.requiredUpdate?.rule == "rec") == turnsRequired)
    }

    @Test func networkBackAfterAMissedPollChecksAtOnce() {
        let world = World()
        world.server.update { $0.lifetime = 60 }
        let sdk = world.sdk()
        sdk.start()
        world.setOnline(false, sdk)
        world.advance(seconds: 300)
        #expect(world.checkRequests.count == 1)
        world.setOnline(true, sdk)
        #expect(world.checkRequests.count == 2)
        #expect(sdk.statistics.checks == 2, "attempts while offline are not made")
    }

    // MARK: - Deadlines pass offline, and then keep blocking

    /// Spec "Deadlines pass offline too" and the Required update row: once its deadline passed
    /// offline, the recommended update is a required update. The 7-day drop of optional
    /// updates does not apply to it, in this process or the next.
    @Test func aRecommendedUpdateTurnedRequiredOfflineKeepsBlockingPastSevenDays() {
        for (platform, flavor) in [(Platform.android, Flavor.native), (.ios, .flutter)] {
            let world = World()
            world.server.update {
                $0.optionalUpdate = [
                    "rule": "soon", "kind": "recommended", "below": "2.4.0",
                    "becomes_required_on": world.at(86_400),
                ]
            }
            let config = world.config(platform: platform, flavor: flavor)
            let sdk = world.sdk(config)
            sdk.start()
            world.setOnline(false, sdk)
            world.advance(seconds: 86_400)
            #expect(sdk.state.screen == .requiredUpdate)
            world.advance(seconds: 7 * 86_400)
            #expect(sdk.state.screen == .requiredUpdate, "\(platform) \(flavor): not dropped after 7 days")
            #expect(sdk.state.requiredUpdate?.rule == "soon")
            sdk.shutdown()
            let relaunched = world.sdk(config)
            relaunched.start()
            #expect(relaunched.state.screen == .requiredUpdate)
            world.online.withLock { $0 = true }
            world.server.update { $0.optionalUpdate = .null }
            relaunched.networkReachabilityChanged(isReachable: true)
            relaunched.refresh { _ in }
            #expect(relaunched.state.screen == .none, "only a successful check that says otherwise lifts it")
        }
    }

    /// The deadline comes after the 7-day drop: the update was no longer saved when it passed.
    @Test func aRecommendedUpdateDroppedBeforeItsDeadlineStaysDropped() {
        let world = World()
        world.server.update {
            $0.optionalUpdate = [
                "rule": "late", "kind": "recommended", "below": "2.4.0",
                "becomes_required_on": world.at(10 * 86_400),
            ]
        }
        let sdk = world.sdk(world.config(platform: .android))
        sdk.start()
        world.setOnline(false, sdk)
        world.advance(seconds: 7 * 86_400)
        #expect(sdk.state.screen == .none)
        world.advance(seconds: 4 * 86_400)
        #expect(sdk.state.screen == .none)
        #expect(sdk.state.requiredUpdate == nil)
    }
}
