import Adapter
import Clock
import JSON
import LerixSDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ADAPTER.md, command by command, with the in-memory backend.
@Suite struct AdapterProtocolTests {
    @Test func helloNamesTheSDKAndWhatItEmulates() {
        let driver = Driver(Backend().makeHost())
        let answer = driver.send("hello")
        #expect(answer["ok"] == true)
        #expect(answer["id"] == 1)
        #expect(answer["name"]?.stringValue == AdapterHost.name)
        let capabilities = answer["capabilities"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(capabilities.contains("push"))
        #expect(capabilities.contains("offline_deadline"))
        #expect(capabilities.contains("flavor:flutter"))
    }

    /// `--platforms android`: one Swift host stands in for an SDK of one platform; a web-only one
    /// lists no push (web pages get none).
    @Test func aHostEmulatingSomePlatformsListsOnlyThemAndRefusesOthers() {
        var options = AdapterHost.Options()
        options.platforms = ["android"]
        let backend = Backend()
        options.timeMoved = { [backend] instant in backend.update { $0.now = instant } }
        let driver = Driver(
            AdapterHost(network: TransportNetwork(InMemoryTransport { backend.answer($0) }), options: options)
        )
        let capabilities = driver.send("hello")["capabilities"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(capabilities.filter { $0.hasPrefix("platform:") } == ["platform:android"])
        #expect(capabilities.contains("push") && capabilities.contains("flavor:flutter"))
        #expect(driver.create("a", platform: "android")["ok"] == true)
        let refused = driver.create("b", platform: "ios")
        #expect(refused["ok"] == false && refused["pointer"] == "/config/platform", "\(refused)")
        #expect(refused["error"]?.stringValue?.contains("emulates android only") == true)
        #expect(!AdapterHost.capabilities(emulating: ["web"]).contains(.push))
    }

    @Test func helloAnswersTheProtocolVersionsItSpeaksAndRefusesAnotherNamingBoth() {
        let driver = Driver(Backend().makeHost())
        let spoken = driver.send("hello", [("protocol", 1)])
        #expect(spoken["ok"] == true)
        #expect(spoken["protocols"] == [1])
        #expect(driver.send("hello")["ok"] == true, "a runner from before the versions sends none")
        let newer = driver.send("hello", [("protocol", 2)])
        #expect(newer["ok"] == false)
        #expect(newer["pointer"] == "/protocol")
        #expect(
            newer["error"]?.stringValue
                == "the adapter \(AdapterHost.name) \(LerixConfiguration.currentSDKVersion) speaks adapter protocol 1; the runner speaks 2"
        )
        #expect(driver.send("hello", [("protocol", "one")])["pointer"] == "/protocol")
    }

    @Test func malformedLinesAnswerOkFalseAndTheAdapterKeepsGoing() {
        let host = Backend().makeHost()
        for line in [
            "", "garbage", "{", "[1,2]", "42", #"{"cmd":"hello"}"#, #"{"id":1}"#, #"{"id":1,"cmd":5}"#,
            String(repeating: "[", count: 10_000), "{\"id\":1,\"cmd\":\"hello\"\u{0}}",
        ] {
            let answer = (try? JSON.parse(host.handleLine(line))) ?? .null
            #expect(answer["ok"] == false, "\(line.prefix(20))")
            #expect(answer["error"]?.stringValue?.isEmpty == false)
        }
        let hello = (try? JSON.parse(host.handleLine(#"{"id":"x","cmd":"hello"}"#))) ?? .null
        #expect(hello["ok"] == true)
        #expect(hello["id"] == "x")
    }

    @Test func unknownCommandsDevicesAndMissingFieldsAreRefusedWithAReason() {
        let driver = Driver(Backend().makeHost())
        #expect(driver.send("fly")["error"]?.stringValue == "unknown command fly")
        #expect(driver.send("launch", [("device", "ghost")])["error"]?.stringValue == "unknown device ghost")
        #expect(driver.send("launch", [("device", "ghost")])["pointer"] == "/device")
        #expect(driver.send("launch")["error"]?.stringValue == "/device: missing field device")
        driver.create("a")
        #expect(driver.send("network", [("device", "a")])["error"]?.stringValue == "/online: missing field online")
        #expect(driver.send("network", [("device", "a"), ("online", "yes")])["ok"] == false)
        #expect(driver.send("track", [("device", "a"), ("module", "bogus"), ("count", 1)])["ok"] == false)
        #expect(driver.send("track", [("device", "a"), ("module", "errors"), ("count", 1.5)])["ok"] == false)
        #expect(
            driver.send("install", [("device", "a")])["error"]?.stringValue
                == "/app_version: missing field app_version (null for an app without a version)"
        )
        #expect(driver.send("advance", [("to", "tomorrow")])["ok"] == false)
        #expect(driver.send("advance", [("to", "2026-12-01T00:00:00.000Z")])["ok"] == false, "time never goes back")
        let badConfig = driver.send(
            "create",
            [
                ("device", "b"), ("now", .string(Driver.start)),
                ("config", ["base_url": "http://x", "project": "demo", "platform": "tv"]),
            ]
        )
        #expect(
            badConfig["error"]?.stringValue
                == "/config/platform: unknown platform 'tv' (expected one of: android, ios, macos, web)"
        )
        #expect(badConfig["pointer"] == "/config/platform")
        #expect(
            driver.send("create", [("device", "c"), ("now", .string(Driver.start))])["error"]?.stringValue
                == "/config: missing field config"
        )
    }

    @Test func launchAppliesTheSavedAnswerThenChecksAndStateReportsIt() {
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("a")
        backend.set(
            "required_update",
            ["rule": "r1", "below": "2.4.0", "store_url": "https://store", "message": "update"]
        )
        #expect(driver.send("launch", [("device", "a")])["ok"] == true)
        let state = driver.state("a")
        #expect(state["screen"] == "required_update")
        #expect(state["required_update"]?["rule"] == "r1")
        #expect(state["checks"] == 1)
        #expect(state["not_modified"] == 0)
        #expect(state["last_success"] == .string(Driver.start))
        #expect(state["etag"]?.stringValue?.hasPrefix("W/") == true)
        #expect(state["polling"] == false)
        #expect(state["maintenance"] == [])
        #expect(state["paused_modules"] == [])
        #expect(
            backend.checks.first?.contains("platform=ios&version=2.3.0&build=41&sdk=swift&sdk_version=1.4.0") == true
        )
    }

    @Test func advanceFiresPollsInTimeOrderAcrossDevicesWithWrongClocks() {
        let backend = Backend()
        backend.update { $0.lifetime = 60 }
        let driver = Driver(backend.makeHost())
        driver.create("fast", offset: 3600)
        driver.create("slow", offset: -5400.5)
        driver.send("launch", [("device", "fast")])
        driver.send("launch", [("device", "slow")])
        #expect(driver.send("next_deadline")["next_deadline"] == "2026-12-02T11:01:00.000Z")
        driver.advance(seconds: 600)
        #expect(driver.state("fast")["checks"] == 11)
        #expect(driver.state("slow")["checks"] == 11)
        #expect(driver.state("slow")["not_modified"] == 10)
        #expect(driver.state("fast")["device_time"] == "2026-12-02T12:10:00.000Z")
        #expect(driver.state("slow")["device_time"] == "2026-12-02T09:39:59.500Z")
        let next = driver.send("next_deadline")["next_deadline"]?.stringValue.flatMap { Instant(rfc3339: $0) }
        #expect(next.map { $0 > driver.host.now } == true)
    }

    @Test func nextDeadlineIsNullWithNothingPending() {
        let driver = Driver(Backend().makeHost())
        #expect(driver.send("next_deadline")["next_deadline"] == .null)
        driver.create("a")
        driver.send("launch", [("device", "a")])
        #expect(driver.send("next_deadline")["next_deadline"] == .null, "lifetime 300: no polling, no windows")
    }

    @Test func maintenanceStartsAndEndsOfflineOnADeviceAnHourWrong() {
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("a", offset: -3600)
        backend.set(
            "maintenance",
            [["rule": "m", "starts_at": backend.at(1800), "ends_at": backend.at(5400), "message": "db"]]
        )
        driver.send("launch", [("device", "a")])
        driver.send("network", [("device", "a"), ("online", false)])
        #expect(driver.state("a")["screen"] == "none")
        #expect(driver.send("next_deadline")["next_deadline"] == "2026-12-02T11:30:00.000Z")
        driver.advance(seconds: 1800)
        #expect(driver.state("a")["screen"] == "maintenance")
        driver.advance(seconds: 3600)
        #expect(driver.state("a")["screen"] == "none")
        #expect(driver.state("a")["checks"] == 1)
    }

    @Test func terminateKeepsStorageAndTheNextLaunchShowsTheSavedAnswerOffline() {
        var template = Array("/tmp/lerix-adapter-XXXXXX".utf8CString)
        let folder = template.withUnsafeMutableBufferPointer { b -> String in
            guard let base = b.baseAddress, let made = mkdtemp(base) else { return "/tmp/lerix-adapter-fallback" }
            return String(cString: made)
        }
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("a", storage: folder + "/missing/device-a")
        backend.set("required_update", ["rule": "r", "below": "9.0.0"])
        driver.send("launch", [("device", "a")])
        driver.send("terminate", [("device", "a")])
        #expect(driver.state("a")["running"] == false)
        driver.send("network", [("device", "a"), ("online", false)])
        driver.send("launch", [("device", "a")])
        let state = driver.state("a")
        #expect(state["screen"] == "required_update")
        #expect(state["checks"] == 1, "the count spans launches; offline attempts do not count")
    }

    @Test func installOfflineDropsTheOldVersionsUpdate() {
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("a")
        backend.set("required_update", ["rule": "r", "below": "2.4.0"])
        driver.send("launch", [("device", "a")])
        driver.send("network", [("device", "a"), ("online", false)])
        driver.send("terminate", [("device", "a")])
        driver.send("install", [("device", "a"), ("app_version", "2.4.0"), ("build", "50")])
        #expect(driver.state("a")["running"] == false, "install does not start the app")
        driver.send("launch", [("device", "a")])
        #expect(driver.state("a")["screen"] == "none")
        backend.set("required_update", .null)
        driver.send("network", [("device", "a"), ("online", true)])
        #expect(driver.state("a")["checks"] == 2, "back online, the missed launch check runs")
        #expect(backend.checks.last?.contains("version=2.4.0&build=50") == true)
    }

    @Test func trackSendsItemsAtOnceUnlessPausedThenFlushesAfterTheSwitchEnds() {
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("a")
        backend.set("sdk_switch", [["rule": "s", "modules": ["analytics"], "ends_at": backend.at(300)]])
        driver.send("launch", [("device", "a")])
        driver.send("track", [("device", "a"), ("module", "analytics"), ("count", 3)])
        driver.send("track", [("device", "a"), ("module", "errors"), ("count", 2)])
        var state = driver.state("a")
        #expect(state["paused_modules"] == ["analytics"])
        #expect(state["queued"]?["analytics"] == 3)
        #expect(state["sent"]?["errors"] == 2)
        #expect(backend.ingest == ["errors": 2])
        driver.advance(seconds: 300)
        state = driver.state("a")
        #expect(state["queued"]?["analytics"] == 0)
        #expect(state["sent"]?["analytics"] == 3)
        #expect(backend.ingest == ["errors": 2, "analytics": 3])
    }

    @Test func laterAndSkipDeferTheOptionalPrompt() {
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("a")
        backend.set("optional_update", ["rule": "o", "kind": "optional", "below": "2.5.0"])
        driver.send("launch", [("device", "a")])
        #expect(driver.state("a")["screen"] == "optional_update")
        driver.send("later", [("device", "a")])
        #expect(driver.state("a")["screen"] == "none")
        driver.send("launch", [("device", "a")])
        #expect(driver.state("a")["screen"] == "optional_update")
        driver.send("skip", [("device", "a")])
        driver.send("launch", [("device", "a")])
        #expect(driver.state("a")["screen"] == "none")
        #expect(driver.state("a")["optional_update"]?["rule"] == "o")
    }

    @Test func pushAndRefreshCheckAtOnceAndPushRoutesByToken() {
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("a", pushToken: "tok-a")
        driver.create("b", pushToken: "tok-b")
        driver.create("w", platform: "web", pushToken: "tok-a")
        for d in ["a", "b", "w"] { driver.send("launch", [("device", .string(d))]) }
        #expect(backend.contents.withLock { $0.tokens }.sorted() == ["tok-a", "tok-b"], "web registers no token")
        driver.send("background", [("device", "a")])
        driver.send("push", [("device", "a")])
        #expect(driver.state("a")["checks"] == 2)
        driver.send("refresh", [("device", "b")])
        #expect(driver.state("b")["checks"] == 2)
        driver.host.deliverPush(token: "tok-a")
        #expect(driver.state("a")["checks"] == 3)
        #expect(driver.state("w")["checks"] == 1)
        driver.send("foreground", [("device", "a")])
        #expect(driver.state("a")["checks"] == 3, "fresh answer: no check on foreground")
    }

    @Test func aPushDeliveredWhileTimeMovesIsHandledAtThatInstant() {
        let backend = Backend()
        let hostBox = Locked<AdapterHost?>(nil)
        var options = AdapterHost.Options()
        let pushAt = Instant(rfc3339: "2026-12-02T11:02:00.000Z")
        let pushed = Locked(false)
        options.timeMoved = { instant in
            backend.update { $0.now = instant }
            let first = pushed.withLock { done -> Bool in
                defer { done = done || instant == pushAt }
                return !done && instant == pushAt
            }
            if first { hostBox.withLock { $0 }?.deliverPush(token: "tok") }
        }
        let host = AdapterHost(network: TransportNetwork(InMemoryTransport { backend.answer($0) }), options: options)
        hostBox.withLock { $0 = host }
        let driver = Driver(host)
        driver.create("a", pushToken: "tok")
        driver.send("launch", [("device", "a")])
        backend.update { $0.lifetime = 60 }  // the next answer makes the device poll
        driver.send("refresh", [("device", "a")])
        driver.send("advance", [("to", "2026-12-02T11:02:00.000Z")])
        // launch, refresh, the poll at 11:01, and at 11:02 the push (the poll due then finds
        // the answer a moment old and waits its 60 s)
        #expect(driver.state("a")["checks"] == 4)
        #expect(backend.checks.count == 4)
        #expect(driver.send("next_deadline")["next_deadline"] == "2026-12-02T11:03:00.000Z")
    }

    @Test func commandsToATerminatedDeviceAreAcceptedAndDoNothing() {
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("a")
        for command in ["foreground", "background", "push", "refresh", "later", "skip", "terminate"] {
            #expect(driver.send(command, [("device", "a")])["ok"] == true)
        }
        #expect(backend.checks.isEmpty)
        #expect(driver.send("track", [("device", "a"), ("module", "feedback"), ("count", 2)])["ok"] == true)
        #expect(driver.state("a")["queued"]?["feedback"] == 2)
        driver.send("launch", [("device", "a")])
        #expect(backend.ingest == ["feedback": 2])
    }

    @Test func aThousandDevicesFitInOneHost() {
        let backend = Backend()
        backend.update { $0.lifetime = 60 }
        let driver = Driver(backend.makeHost())
        for n in 0..<1000 {
            driver.create("d\(n)", platform: n % 2 == 0 ? "ios" : "android", offset: Double(n % 7) * 60)
            driver.send("launch", [("device", .string("d\(n)"))])
        }
        driver.advance(seconds: 120)
        #expect(backend.checks.count == 3000)
        #expect(driver.state("d999")["checks"] == 3)
    }

    @Test func createWithAnExistingDeviceIdIsRefusedUnlessReplaceIsAsked() {
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("a")
        driver.send("launch", [("device", "a")])
        let again = driver.create("a", version: "9.9.9")
        #expect(again["ok"] == false)
        #expect(again["error"]?.stringValue?.contains("replace") == true)
        #expect(driver.state("a")["checks"] == 1, "the first device is untouched")
        let replaced = driver.send(
            "create",
            [
                ("device", "a"), ("replace", true),
                (
                    "config",
                    [
                        "base_url": "http://backend.test", "project": "demo", "platform": "android",
                        "app_version": "9.9.9",
                    ]
                ),
            ]
        )
        #expect(replaced["ok"] == true)
        let state = driver.state("a")
        #expect(state["running"] == false)
        #expect(state["checks"] == 0)
        #expect(driver.send("create", [("device", "a"), ("replace", "yes"), ("config", [:])])["ok"] == false)
    }

    /// `null` means absent end to end: a device declared without an SDK name or version sends
    /// none (so a version-bounded switch does not match it); a missing key sends the default.
    @Test func nullDeviceAttributesAreNotSentAndMissingOnesTakeTheirDefault() {
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("none", version: .null, extra: [("sdk", .null), ("sdk_version", .null), ("build", .null)])
        driver.send(
            "create",
            [
                ("device", "defaults"),
                (
                    "config",
                    [
                        "base_url": "http://backend.test", "project": "demo", "platform": "ios",
                    ]
                ),
            ]
        )
        driver.send("launch", [("device", "none")])
        driver.send("launch", [("device", "defaults")])
        #expect(
            backend.checks == [
                "http://backend.test/v1/projects/demo/release-control?platform=ios",
                "http://backend.test/v1/projects/demo/release-control?platform=ios&sdk=swift&sdk_version=\(LerixConfiguration.currentSDKVersion)",
            ]
        )
    }

    @Test func aFailedCheckShowsWhatFailedAndWhyInTheStateAndTheLog() {
        let backend = Backend()
        let lines = Locked<[String]>([])
        var options = AdapterHost.Options()
        options.timeMoved = { instant in backend.update { $0.now = instant } }
        options.log = { line in lines.withLock { $0.append(line) } }
        let driver = Driver(
            AdapterHost(network: TransportNetwork(InMemoryTransport { backend.answer($0) }), options: options)
        )
        driver.create("a")
        #expect(driver.state("a")["last_failure"] == .null)
        backend.update { $0.down = true }
        #expect(driver.send("launch", [("device", "a")])["ok"] == true, "a failed check is the SDK's business")
        var state = driver.state("a")
        #expect(state["checks"] == 1)
        #expect(state["failed_checks"] == 1)
        #expect(state["last_success"] == .null)
        #expect(
            state["last_failure"] == [
                "kind": "connection", "status": .null, "reason": "connection refused", "at": .string(Driver.start),
            ]
        )
        #expect(lines.withLock { $0 } == ["device a: lerix: check failed (connection): connection refused"])
        driver.send("refresh", [("device", "a")])
        #expect(lines.withLock { $0.count } == 1, "the same failure again is not logged again")
        backend.update { $0.down = false }
        driver.send("refresh", [("device", "a")])
        state = driver.state("a")
        #expect(state["failed_checks"] == 2)
        #expect(state["last_success"] == .string(Driver.start))
        #expect(state["last_failure"]?["kind"] == "connection", "the last failure stays, with its time")
        driver.send("terminate", [("device", "a")])
        driver.send("launch", [("device", "a")])
        #expect(driver.state("a")["last_failure"]?["reason"] == "connection refused", "kept across launches")
    }

    /// `set_clock`: the user sets the device clock within a run; the SDK counts true time.
    @Test func setClockMovesTheDeviceClockAndTheSDKStillCountsTrueTime() {
        let backend = Backend()
        let driver = Driver(backend.makeHost())
        driver.create("a")
        driver.send("launch", [("device", "a")])
        driver.send("background", [("device", "a")])
        driver.advance(seconds: 200)
        #expect(
            driver.send("set_clock", [("device", "a")])["error"]?.stringValue
                == "/clock_offset_seconds: missing field clock_offset_seconds"
        )
        #expect(driver.send("set_clock", [("device", "a"), ("clock_offset_seconds", -7200)])["ok"] == true)
        let deviceTime = Instant(rfc3339: Driver.start)?.adding(seconds: 200 - 7200).rfc3339
        #expect(driver.state("a")["device_time"]?.stringValue == deviceTime)
        driver.send("foreground", [("device", "a")])
        #expect(driver.state("a")["checks"] == 1, "200 s old truly")
        driver.send("background", [("device", "a")])
        driver.advance(seconds: 100)
        driver.send("foreground", [("device", "a")])
        #expect(driver.state("a")["checks"] == 2, "300 s old truly, although the clock went back 2 h")
    }
}
