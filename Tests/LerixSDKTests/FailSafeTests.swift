import Clock
import Foundation
import JSON
import LerixSDK
import Testing

/// Spec "Built to fail safely".
@Suite struct FailSafeTests {
    @Test func wrongTypedPartKeepsTheSavedValueOfThatPartOnly() {
        let world = World()
        world.server.update {
            $0.requiredUpdate = ["rule": "r", "below": "2.4.0"]
            $0.maintenance = [["rule": "m", "starts_at": world.at(-10), "ends_at": world.at(3000)]]
            $0.lifetime = 60
        }
        let sdk = world.sdk()
        sdk.start()
        world.server.update {
            $0.rawBody = Array(
                #"""
                {"required_update": [], "optional_update": {"rule": "o", "kind": "optional", "below": "2.5.0"},
                 "maintenance": {}, "sdk_switch": "x", "lifetime": "60", "server_time": 5, "extra": {"future": true}}
                """#.utf8
            )
        }
        sdk.refresh { _ in }
        let state = sdk.state
        #expect(state.requiredUpdate?.rule == "r")
        #expect(state.optionalUpdate?.rule == "o", "the part with the right type is applied")
        #expect(state.maintenance.first?.rule == "m")
        #expect(state.polling, "the saved lifetime is kept")
        #expect(state.etag == nil, "a partly read answer is not renewed by a later 304")
    }

    @Test func unreadableAnswerIsAFailedCheckThatChangesNothing() {
        let world = World()
        world.server.update { $0.requiredUpdate = ["rule": "r", "below": "2.4.0"] }
        let sdk = world.sdk()
        sdk.start()
        let before = sdk.state
        for body in ["{\"required_update\": nu", "[]", "", "\u{0}\u{1}", "\"text\""] {
            world.server.update { $0.rawBody = Array(body.utf8) }
            sdk.refresh { _ in }
        }
        var after = sdk.state
        #expect(after.lastCheckFailure?.kind == .body)
        #expect(after.lastCheckFailure?.reason == "the answer is a JSON string, not an object")
        after.lastCheckFailure = nil
        #expect(after == before)
        #expect(sdk.statistics.failedChecks == 5)
    }

    @Test func deviceWithoutAVersionIsNeverBlocked() {
        let world = World()
        world.server.update {
            $0.requiredUpdate = ["rule": "r", "below": "2.4.0"]
            $0.optionalUpdate = [
                "rule": "o", "kind": "recommended", "below": "2.5.0", "becomes_required_on": world.at(-10),
            ]
        }
        for version in [nil, ""] as [String?] {
            let sdk = world.sdk(world.config(platform: .android, version: version, build: nil))
            sdk.start()
            #expect(sdk.state.screen == .none)
            #expect(sdk.state.requiredUpdate == nil)
            #expect(world.checkRequests.last?.url.contains("&version=") == false)
            sdk.shutdown()
        }
    }

    @Test func maintenanceNeverRunsPast7DaysAfterItsStartOnTheClient() {
        let world = World()
        world.server.update {
            $0.maintenance = [["rule": "m", "starts_at": world.at(0), "ends_at": world.at(30 * 86_400)]]
        }
        let sdk = world.sdk()
        sdk.start()
        world.setOnline(false, sdk)
        world.advance(seconds: 7 * 86_400 - 1)
        #expect(sdk.state.screen == .maintenance)
        world.advance(seconds: 1)
        #expect(sdk.state.screen == .none)
    }

    @Test func damagedSavedFileLosesOnlyTheDamagedPart() throws {
        let storage = InMemoryStorage()
        try storage.save(
            ReleaseControlMachine.storageKey,
            Array(
                #"""
                {"required_update": {"rule": "r"}, "maintenance": 3, "lifetime": "x", "app_version": "2.3.0", "build": "41",
                 "last_success": "2026-12-02T10:00:00.000Z"}
                """#.utf8
            )
        )
        let saved = SavedAnswer(encoded: storage.load(ReleaseControlMachine.storageKey) ?? [])
        #expect(saved.requiredUpdate?.rule == "r")
        #expect(saved.maintenance.isEmpty)
        #expect(saved.lifetime == SavedAnswer.defaultLifetime)
        #expect(SavedAnswer(encoded: Array("garbage".utf8)) == SavedAnswer())
    }
}
