import JSON
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

@Suite struct ScenarioRunTests {
    func run(_ text: String, seed: UInt64 = 1, verbose: Bool = true) throws -> (ScenarioOutcome, FakeEnvironment) {
        let scenario = try Scenario.parse(Array(text.utf8), file: "run.yaml")
        let environment = FakeEnvironment()
        let suite = ScenarioSuite(scenarios: [scenario])
        let result = SuiteRunner(options: SuiteOptions(seed: seed, verbose: verbose)).run(suite, in: environment)
        return (try #require(result.outcomes.first), environment)
    }

    static let blockAndLift = """
        name: block then lift
        devices:
          phone: {platform: ios, app_version: "2.3.0", push: true}
          tablet: {platform: android, app_version: "2.5.0"}
        steps:
          - create_rule: {name: block, type: required_update, below: "2.4.0"}
          - launch: [phone, tablet]
          - expect: {device: phone, screen: required_update, required_update: {rule: block}, checks: 1}
          - expect: {device: tablet, screen: none, checks: 1}
          - after: 5m
          - expect: {device: tablet, checks: 6, not_modified: 5}
          - expect_server: {device: tablet, checks: 6, ok: 1, not_modified: 5, last: {status: 304, lifetime: 60}}
          - expect_pushes: {count: 1, sent_at: [+0s], tokens: 1}
          - delete_rule: block
          - until: {device: phone, screen: none, within: 2m}
        """

    @Test func aPassingScenarioStopsAtEveryDeviceTimer() throws {
        let (outcome, env) = try run(Self.blockAndLift)
        #expect(outcome.status == .passed, "\(outcome.failure)")
        // The tablet polled at each minute of the five: the runner stopped at every deadline.
        let times =
            env.lastServer?.journal.filter { $0["device"]?["platform"] == "android" }.compactMap {
                $0["at"]?.stringValue
            } ?? []
        #expect(times.count >= 6)
        #expect(
            times.prefix(6) == [
                "2026-12-02T09:32:00.000Z", "2026-12-02T09:33:00.000Z", "2026-12-02T09:34:00.000Z",
                "2026-12-02T09:35:00.000Z", "2026-12-02T09:36:00.000Z", "2026-12-02T09:37:00.000Z",
            ]
        )
    }

    @Test func serverPushesReachTheDeviceOwningTheToken() throws {
        let (outcome, env) = try run(Self.blockAndLift)
        // The create's push left before the app ran; the delete's went out at once (the last
        // was 5 min earlier) and woke the phone.
        #expect(outcome.log.contains { $0.contains("push 1 to phone ignored: the app is not running") })
        #expect(outcome.log.contains { $0.contains("push 2 reaches phone") })
        #expect(env.lastAdapter?.commands.filter { $0 == "push" }.count == 1)
    }

    @Test func throttledPushesAreDeliveredWhenTheServerSendsThem() throws {
        let (outcome, _) = try run(
            """
            name: throttle
            devices:
              phone: {platform: ios, app_version: "2.3.0", push: true}
            steps:
              - launch: phone
              - create_rule: {name: a, type: required_update, below: "2.4.0"}
              - after: 10s
              - create_rule: {name: b, type: required_update, below: "2.5.0"}
              - expect_pushes: {count: 1}
              - push_delivery: {device: phone, delay: 5s}
              - after: 2m
              - expect_pushes: {count: 2, sent_at: [+0s, +60s]}
            """
        )
        #expect(outcome.status == .passed, "\(outcome.failure)")
        // The second push left at +60s and arrived 5 s later, a stop of its own.
        #expect(
            outcome.log.contains { $0.hasPrefix("+00h01m05s") && $0.contains("push 2 reaches phone") },
            "\(outcome.log)"
        )
    }

    @Test func droppedPushesNeverArrive() throws {
        let (outcome, env) = try run(
            """
            name: drop
            devices:
              phone: {platform: ios, app_version: "2.3.0", push: true}
            steps:
              - launch: phone
              - background: phone
              - push_delivery: {device: phone, drop: true}
              - create_rule: {name: a, type: required_update, below: "2.4.0"}
              - expect: {device: phone, screen: none, checks: 1}
            """
        )
        #expect(outcome.status == .passed, "\(outcome.failure)")
        #expect(env.lastAdapter?.commands.contains("push") == false)
    }

    @Test func aFailureNamesTheStepTimeExpectedSeenAndRecentChecks() throws {
        let (outcome, _) = try run(
            """
            name: wrong
            devices:
              tablet: {platform: android, app_version: "2.5.0"}
            steps:
              - create_rule: {name: block, type: required_update, below: "2.4.0"}
              - launch: tablet
              - after: 90s
              - expect: {device: tablet, screen: required_update}
            """,
            verbose: false
        )
        #expect(outcome.status == .failed)
        let report = outcome.failure
        #expect(report.contains("step 4 at run.yaml:8:5"))
        #expect(report.contains("virtual time +00h01m30s (2026-12-02T09:33:30.000Z)"))
        #expect(report.contains(#"tablet: screen: expected "required_update", seen "none""#))
        #expect(report.contains("recent checks of tablet (android 2.5.0 build none, kotlin 1.5.0), oldest first:"))
        #expect(report.contains("+00h01m00s  304  lifetime 60"))
        #expect(outcome.failureSummary.hasPrefix("step 4 (run.yaml:8:5)"))
    }

    @Test func sameScenarioSameResultEveryRun() throws {
        let text = """
            name: random drops
            devices:
              fleet: {count: 20, platform: ios, app_version: "2.3.0", push: true}
            steps:
              - launch: fleet
              - background: fleet
              - push_delivery: {device: fleet, drop: 0.5}
              - create_rule: {name: a, type: required_update, below: "2.4.0"}
              - after: 2m
              - delete_rule: a
              - after: 2m
              - expect_pushes: {count: ">= 1"}
            """
        let (a, envA) = try run(text, seed: 7)
        let (b, envB) = try run(text, seed: 7)
        #expect(a.log == b.log)
        #expect(envA.lastAdapter?.commands == envB.lastAdapter?.commands)
        let pushes = envA.lastAdapter?.commands.filter { $0 == "push" }.count ?? 0
        #expect(pushes > 0 && pushes < 40)  // some dropped, some delivered
        let (c, _) = try run(text, seed: 8)
        #expect(c.log != a.log)  // another seed, other drops
    }

    @Test func scenariosNeedingWhatTheAdapterLacksAreSkipped() throws {
        let (outcome, _) = try run(
            """
            name: mac
            devices:
              mac: {platform: macos}
            steps:
              - launch: mac
              - expect: {device: mac, checks: 1}
            """
        )
        #expect(
            outcome.status
                == .skipped(
                    "device 'mac' may run on macos only; the adapter emulates ios, android (why: the scenario gives no `platform_reason`)"
                )
        )
    }

    @Test func aRunWhoseEveryScenarioWasSkippedIsNotGreen() throws {
        let scenario = try Scenario.parse(
            Array(
                "name: mac\ndevices:\n  mac: {platform: macos}\nsteps:\n  - launch: mac\n  - expect: {device: mac, checks: 1}\n"
                    .utf8
            ),
            file: "mac.yaml"
        )
        let result = SuiteRunner(options: SuiteOptions()).run(
            ScenarioSuite(scenarios: [scenario]),
            in: FakeEnvironment()
        )
        #expect(result.skipped == 1 && result.failed == 0 && result.errors == 0)
        #expect(!result.succeeded)
        #expect(result.nothingRan == "no scenario ran: all 1 selected were skipped")
    }

    @Test func aSkipIsGreenUnlessEveryScenarioMustRun() throws {
        let mac = try Scenario.parse(
            Array(
                "name: mac\ndevices:\n  mac: {platform: macos}\nsteps:\n  - launch: mac\n  - expect: {device: mac, checks: 1}\n"
                    .utf8
            ),
            file: "mac.yaml"
        )
        let ios = try Scenario.parse(
            Array(
                "name: ios\ndevices:\n  p: {platform: ios}\nsteps:\n  - launch: p\n  - expect: {device: p, checks: 1}\n"
                    .utf8
            ),
            file: "ios.yaml"
        )
        let result = SuiteRunner(options: SuiteOptions()).run(
            ScenarioSuite(scenarios: [mac, ios]),
            in: FakeEnvironment()
        )
        #expect(result.passed == 1 && result.skipped == 1)
        #expect(result.succeeded && !result.succeededWithoutSkips)
        #expect(result.skipProblem == "1 scenario was skipped ('mac') and --no-skips wants every one to run")
    }

    @Test func ingestCountsAndTimeStepsWork() throws {
        let (outcome, _) = try run(
            """
            name: ingest
            devices:
              phone: {platform: ios}
            steps:
              - launch: phone
              - track: {device: phone, module: analytics, count: 3}
              - offline: phone
              - track: {device: phone, module: analytics, count: 2}
              - at: 1h
              - expect_ingest: {analytics: 3, errors: 0}
            """
        )
        #expect(outcome.status == .passed, "\(outcome.failure)")
        #expect(outcome.virtualMilliseconds == 3_600_000)
    }

    @Test func untilGivesUpAfterWithin() throws {
        let (outcome, _) = try run(
            """
            name: until
            devices:
              phone: {platform: ios, app_version: "2.3.0"}
            steps:
              - launch: phone
              - until: {device: phone, screen: required_update, within: 3m}
            """,
            verbose: false
        )
        #expect(outcome.status == .failed)
        #expect(outcome.failure.contains("still not so after waiting 00h03m00s"))
        #expect(outcome.virtualMilliseconds == 180_000)
    }

    @Test func junitAndCoverageReportsListEveryScenario() throws {
        let (outcome, _) = try run(Self.blockAndLift)
        var failed = outcome
        failed.status = .failed
        failed.scenario = "a <b> & \"c\""
        failed.failure = "x < y"
        let xml = JUnitReport.xml(SuiteResult(outcomes: [outcome, failed], adapterName: "fake 0"))
        #expect(xml.contains(#"<testsuite name="lerix-mock scenarios" tests="2" failures="1""#))
        #expect(xml.contains(#"name="a &lt;b&gt; &amp; &quot;c&quot;""#))
        #expect(xml.contains("x &lt; y</failure>"))
        let catalogue = try SpecCatalogue.parse(
            Array("rows:\n  - {id: a, section: S, text: one}\n  - {id: b, section: S, text: two}\n".utf8),
            file: "c"
        )
        var scenario = try Scenario.parse(Array(Self.blockAndLift.utf8), file: "dir/x.yaml")
        scenario.covers = ["a"]
        let text = CoverageReport.text(catalogue: catalogue, scenarios: [scenario])
        #expect(text.contains("1 of 2 rows"))
        #expect(text.contains("✓ a  x.yaml"))
        #expect(text.contains("✗ b"))
        #expect(CoverageReport.uncovered(catalogue: catalogue, scenarios: [scenario]) == ["b"])
    }

    // MARK: devices that may run on several platforms

    /// `platform: [macos, android]`: the fake adapter emulates ios and android, so the device
    /// runs on android, with android's SDK and FCM token, and the scenario passes there.
    @Test func aDeviceWithPlatformChoicesRunsOnTheFirstTheAdapterEmulates() throws {
        let (outcome, _) = try run(
            """
            name: choices
            devices:
              mac: {platform: [macos, android], app_version: "2.3.0", push: true}
            steps:
              - launch: mac
              - expect: {device: mac, checks: 1}
            """
        )
        #expect(outcome.status == .passed, "\(outcome.failure)")
        let scenario = try Scenario.parse(
            Array(
                "name: c\ndevices:\n  d: {platform: [macos, android], push: true}\nsteps:\n  - expect: {device: d, checks: 0}\n"
                    .utf8
            ),
            file: "c.yaml"
        )
        #expect(
            scenario.devices[0].platform == "android",
            "a list is a set: before narrowing, its first platform in the order ios, android, macos, web"
        )
        #expect(scenario.devices[0].platformChoices == ["android", "macos"])
        let narrowed = scenario.narrowed(toPlatforms: ["ios", "android"]).devices[0]
        #expect(narrowed.platform == "android" && narrowed.sdk == "kotlin" && narrowed.pushToken == "fcm-d")
        #expect(
            scenario.narrowed(toPlatforms: nil).devices[0].platform == "android",
            "an adapter listing no platform emulates all"
        )
        #expect(scenario.narrowed(toPlatforms: ["macos", "web"]).devices[0].platform == "macos")
        #expect(
            scenario.narrowed(toPlatforms: ["web"]).devices[0].platform == "android",
            "no choice emulated: stays, and is skipped"
        )
    }

    @Test func anyPlatformMeansEveryOneWithPushLeavingOutTheWeb() throws {
        func choices(_ device: String) throws -> [String]? {
            try Scenario.parse(
                Array("name: c\ndevices:\n  d: \(device)\nsteps:\n  - expect: {device: d, checks: 0}\n".utf8),
                file: "c.yaml"
            ).devices[0].platformChoices
        }
        #expect(try choices("{platform: any}") == ["ios", "android", "macos", "web"])
        #expect(try choices("{platform: any, push: true}") == ["ios", "android", "macos"])
        #expect(try choices("{platform: android}") == nil)
        let written = try Scenario.parse(
            Array(
                "name: c\ndevices:\n  d: {platform: any, sdk: swift}\nsteps:\n  - expect: {device: d, checks: 0}\n".utf8
            ),
            file: "c.yaml"
        )
        #expect(written.narrowed(toPlatforms: ["web"]).devices[0].sdk == "swift", "a written sdk stays")
        #expect(throws: ScenarioFileErrors.self) {
            try Scenario.parse(
                Array(
                    "name: c\ndevices:\n  d: {platform: [ios, web], push: true}\nsteps:\n  - expect: {device: d, checks: 0}\n"
                        .utf8
                ),
                file: "c.yaml"
            )
        }
    }

    /// Skips say which device or step needs what, the spec's reason, and the rows left unpinned.
    @Test func aSkipNamesTheDevicesAndTheSpecsReason() throws {
        let scenario = try Scenario.parse(
            Array(
                """
                name: push
                covers: [check.silent-push]
                devices:
                  phone: {platform: [ios, web], app_version: "2.3.0"}
                  pixel: {platform: android, app_version: "2.3.0", push: true}
                steps:
                  - launch: all
                  - push: pixel
                  - expect: {device: pixel, checks: 2}
                """.utf8
            ),
            file: "p.yaml"
        ).narrowed(toPlatforms: ["web"])
        let text = SkipReason.text(for: scenario, missing: ["platform:android", "push"], adapterPlatforms: ["web"])
        #expect(
            text
                == "device 'pixel' may run on android only; the adapter emulates web (why: the scenario gives no `platform_reason`); "
                + "device 'pixel' has a push token, step 2 (push: pixel): the adapter lacks push (web pages receive no silent push; a device with push may run on ios, android or macos); covers check.silent-push",
            "\(text)"
        )
    }

    // MARK: portable by default

    static func parsed(_ yaml: String) throws -> Scenario {
        try Scenario.parse(Array(yaml.utf8), file: "p.yaml")
    }

    /// A device that names no platform may run on any (with push: any but the web); the
    /// scenario's own `platform` says it once for all; a fleet's own list still cycles.
    @Test func aDeviceWithoutAPlatformIsPortableAndTheScenarioCanSayItOnce() throws {
        let portable = try Self.parsed(
            "name: p\ndevices:\n  a: {}\n  b: {push: true}\nsteps:\n  - expect: {device: a, checks: 0}\n"
        )
        #expect(
            portable.devices.map(\.platformChoices) == [
                ["ios", "android", "macos", "web"], ["ios", "android", "macos"],
            ]
        )
        #expect(portable.narrowed(toPlatforms: ["android"]).devices.map(\.platform) == ["android", "android"])
        let web = portable.narrowed(toPlatforms: ["web"])
        #expect(web.devices[0].platform == "web" && web.devices[0].sdk == "js")
        let once = try Self.parsed(
            """
            name: p
            platform: [web, macos]
            platform_reason: the spec says so
            devices:
              a: {}
              b: {platform: ios}
              fleet: {count: 2, platform: [ios, android]}
            steps:
              - expect: {device: a, checks: 0}
            """
        )
        #expect(once.platformReason == "the spec says so")
        #expect(once.devices.map(\.platformChoices) == [["macos", "web"], nil, nil, nil])
        #expect(once.devices.map(\.platform) == ["macos", "ios", "ios", "android"])
    }

    /// A skip names every platform each unplaceable device could have run on, what the adapter
    /// emulates, and the scenario's `platform_reason`.
    @Test func aPlatformSkipNamesEveryAcceptablePlatformAndTheReason() throws {
        let scenario = try Self.parsed(
            """
            name: p
            platform_reason: native apps off Android keep it optional
            devices:
              native: {platform: [web, ios, macos]}
              other: {}
            steps:
              - expect: {device: native, checks: 0}
            """
        )
        let abilities = try AdapterAbilities(
            hello: .object([("capabilities", ["platform:android", "flavor:native", "refresh"])])
        )
        guard case .skip(let outcome) = abilities.plan(scenario) else {
            Issue.record("not skipped")
            return
        }
        #expect(
            outcome.status
                == .skipped(
                    "device 'native' may run on ios, macos or web; the adapter emulates android (why: native apps off Android keep it optional)"
                ),
            "\(outcome.status)"
        )
    }
}
