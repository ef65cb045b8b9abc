import JSON
import ReleaseControl
import Testing

@testable import ScenarioLanguage

@Suite struct ScenarioParseTests {
    func parse(_ text: String, catalogue: SpecCatalogue = .builtIn) throws(ScenarioFileErrors) -> Scenario {
        try Scenario.parse(Array(text.utf8), file: "s.yaml", catalogue: catalogue)
    }

    /// Every mistake the file has, in file order.
    func errors(_ text: String, catalogue: SpecCatalogue = .builtIn) -> [ScenarioError] {
        do {
            _ = try parse(text, catalogue: catalogue)
            return []
        } catch {
            return error.errors
        }
    }

    /// The file's only mistake (a test of one mistake fails when the file has more).
    func error(_ text: String, catalogue: SpecCatalogue = .builtIn) -> ScenarioError? {
        let all = errors(text, catalogue: catalogue)
        #expect(all.count <= 1, "more than one mistake: \(all)")
        return all.first
    }

    @Test func aWellFormedScenarioBecomesATypedModel() throws {
        let s = try parse(
            """
            name: required update
            tags: [offline]
            rules:
              - {name: block, type: required_update, below: "2.4.0"}
            devices:
              phone: {platform: ios, app_version: "2.3.0", push: true, clock_offset: -2h}
            steps:
              - launch: phone
              - after: 1h30m
              - expect: {device: phone, screen: required_update, required_update: {rule: block}}
              - lift_all
            """
        )
        #expect(s.name == "required update")
        #expect(
            s.devices == [
                DeviceSpec(
                    name: "phone",
                    platform: "ios",
                    flavor: "native",
                    appVersion: "2.3.0",
                    build: nil,
                    sdk: "swift",
                    sdkVersion: "1.5.0",
                    pushToken: DeviceSpec.defaultToken(name: "phone", platform: "ios"),
                    enabled: true,
                    clockOffsetSeconds: -7200,
                    sdkWritten: false,
                    defaultPushToken: true
                )
            ]
        )
        #expect(s.steps.count == 4)
        if case .after(let ms) = s.steps[1].action { #expect(ms == 5_400_000) } else { Issue.record("not after") }
        #expect(s.steps[2].location.description == "s.yaml:10:5")
        #expect(
            s.requiredCapabilities == ["clock_offset", "platform:ios", "push"],
            "a wrong device clock needs clock_offset"
        )
    }

    @Test func setClockAndFailureExpectationsAreCheckedBeforeTheyRun() throws {
        let base = "name: x\ndevices:\n  p: {platform: ios}\nsteps:\n"
        let s = try parse(
            base
                + "  - set_clock: {device: p, clock_offset: -2h}\n  - expect: {device: p, failed_checks: \"+1\", last_failure: {kind: status, at: +1m}}\n"
        )
        if case .setClock(let devices, let seconds) = s.steps[0].action {
            #expect(devices == ["p"] && seconds == -7200)
        } else {
            Issue.record("not set_clock")
        }
        #expect(
            s.requiredCapabilities.contains("clock_offset"),
            "set_clock needs an adapter that can set a device clock"
        )
        #expect(
            error(base + "  - set_clock: {device: p, clock_offset: soon}\n")?.message.contains(
                "`clock_offset` is how far"
            ) == true
        )
        #expect(error(base + "  - set_clock: {device: p}\n")?.message.contains("clock_offset") == true)
        #expect(
            error(base + "  - expect: {device: p, last_failure: {kind: stauts}}\n")?.message.contains(
                "did you mean 'status'?"
            ) == true
        )
        #expect(
            error(base + "  - expect: {device: p, last_failure: {reasn: x}}\n")?.message.contains(
                "did you mean 'reason'?"
            ) == true
        )
        #expect(error(base + "  - expect: {device: p, failed_checks: many}\n")?.message.contains("is a count") == true)
    }

    @Test func unknownTopLevelKeysGetASuggestionAtTheirPosition() {
        let e = error("name: x\ndevics: {}\nsteps: []\n")  // once: not also "needs `devices`"
        #expect(e?.description == "s.yaml:2:1: unknown key 'devics' in a scenario (did you mean 'devices'?)")
    }

    @Test func unknownStepsAndDeviceKeysGetSuggestions() {
        let step = error("name: x\ndevices: {p: {platform: ios}}\nsteps:\n  - lanch: p\n")
        #expect(step?.description == "s.yaml:4:5: unknown step 'lanch' (did you mean 'launch'?)")
        let key = error("name: x\ndevices:\n  p: {platfrom: ios}\nsteps: []\n")
        #expect(key?.description == "s.yaml:3:7: unknown key 'platfrom' in device 'p' (did you mean 'platform'?)")
        let platform = error("name: x\ndevices:\n  p: {platform: andriod}\nsteps: []\n")
        #expect(platform?.description == "s.yaml:3:17: unknown platform 'andriod' (did you mean 'android'?)")
    }

    @Test func unknownDevicesInStepsAreNamedWithASuggestion() {
        let e = error("name: x\ndevices: {phone: {platform: ios}}\nsteps:\n  - launch: phnoe\n")
        #expect(e?.description == "s.yaml:4:13: no device or group named 'phnoe' (did you mean 'phone'?)")
    }

    @Test func unquotedVersionsThatYAMLReadsAsNumbersAreExplained() {
        let e = error("name: x\ndevices:\n  p: {platform: ios, app_version: 1.10}\nsteps: []\n")
        #expect(e?.message.contains("write it in quotes") == true)
        #expect(e?.location.mark.line == 3)
    }

    @Test func aStepWithTwoActionsIsAnError() {
        let e = error("name: x\ndevices: {p: {platform: ios}}\nsteps:\n  - launch: p\n    after: 5m\n")
        #expect(e?.message.contains("a step holds one action") == true)
        #expect(e?.location.mark.line == 4)
    }

    @Test func badDurationsAndRuleTimesAreErrors() {
        #expect(error("name: x\ndevices: {}\nsteps:\n  - after: soon\n")?.location.mark.line == 4)
        let rule = error(
            "name: x\ndevices: {}\nrules:\n  - {name: m, type: maintenance, starts_at: tomorrow, ends_at: +1h}\nsteps: []\n"
        )
        #expect(rule?.message.contains("starts_at") == true)
        let type = error("name: x\ndevices: {}\nrules:\n  - {name: m, type: maintenence}\nsteps: []\n")
        #expect(type?.message == "unknown rule type 'maintenence' (did you mean 'maintenance'?)")
    }

    @Test func stepsMayOnlyTouchRulesThatExist() {
        let e = error("name: x\ndevices: {}\nsteps:\n  - delete_rule: block\n")
        #expect(e?.message.hasPrefix("no rule named 'block'") == true)
    }

    @Test func fleetsExpandAndCycleListValues() throws {
        let s = try parse(
            """
            name: fleet
            devices:
              fleet: {count: 12, platform: [ios, android, web], app_version: ["1.0.0", "2.0.0"]}
            steps:
              - launch: fleet
              - expect: {device: fleet, screen: none}
            """
        )
        #expect(s.devices.count == 12)
        #expect(s.devices[0].name == "fleet-01")
        #expect(s.devices.map(\.platform).prefix(4) == ["ios", "android", "web", "ios"])
        #expect(s.devices[1].appVersion == "2.0.0")
        #expect(s.groups["fleet"]?.count == 12)
        #expect(s.groups["all"]?.count == 12)
    }

    /// A fleet's devices are read once per combination of its lists' cycles and renamed: each is
    /// what the entry says of that device alone (the same entry written as a single device).
    @Test func aFleetDeviceIsItsEntryReadAsThatDeviceAlone() throws {
        let s = try parse(
            """
            name: fleet
            devices:
              fleet: {count: 12, platform: [ios, android, macos], app_version: ["1.0.0", null], push: true,
                      build: ["7", "8", "9", "10"], clock_offset: [0, -2h]}
            steps:
              - expect: {device: fleet, screen: none}
            """
        )
        let platforms = ["ios", "android", "macos"]
        let versions: [String?] = ["1.0.0", nil]
        let clockOffsets: [Int64] = [0, -7200]
        for (i, device) in s.devices.enumerated() {
            let name = "fleet-" + (i < 9 ? "0" : "") + String(i + 1)
            let one = try parse(
                """
                name: one
                devices:
                  \(name): {platform: \(platforms[i % 3]), app_version: \(versions[i % 2].map { "\"\($0)\"" } ?? "null"), push: true,
                          build: "\(["7", "8", "9", "10"][i % 4])", clock_offset: \(clockOffsets[i % 2])}
                steps:
                  - expect: {device: \(name), screen: none}
                """
            )
            #expect([device] == one.devices, "device \(i + 1)")
        }
        #expect(Set(s.devices.compactMap(\.pushToken)).count == 12, "each device its own token")
    }

    /// A problem that names its device is reported for each device of a fleet.
    @Test func aFleetProblemNamingTheDeviceIsReportedForEach() throws {
        do {
            _ = try parse(
                """
                name: fleet
                devices:
                  fleet: {count: 3, platform: [web, ios], push: true}
                steps:
                  - expect: {device: fleet, screen: none}
                """
            )
            Issue.record("a web device with push was accepted")
        } catch {
            let messages = error.errors.map(\.message)
            #expect(
                messages
                    == ["fleet-1", "fleet-3"].map {
                        "device '\($0)' is on the web, which has no push; drop `push`/`push_token`"
                    },
                "\(messages)"
            )
        }
    }

    /// Provider-shaped tokens, the same on every run and machine (a run's push routing and
    /// reports depend on them).
    @Test func defaultTokensKeepTheirValues() {
        #expect(DeviceSpec.defaultToken(name: "phone", platform: "android") == "fcm-phone")
        let phone = DeviceSpec.defaultToken(name: "phone", platform: "ios")
        #expect(phone == Self.referenceToken("phone"))
        #expect(DeviceSpec.defaultToken(name: "fleet-00042", platform: "macos") == Self.referenceToken("fleet-00042"))
        #expect(DeviceSpec.defaultToken(name: "téléphone", platform: "ios") == Self.referenceToken("téléphone"))
        #expect(phone.utf8.count == 64 && phone.utf8.allSatisfy { "0123456789abcdef".utf8.contains($0) })
    }

    /// The token as first written: round r hashes `name#r` on from the previous round.
    static func referenceToken(_ name: String) -> String {
        var hex = ""
        var h = FNV1a64.offsetBasis
        for round in 0..<4 {
            h = FNV1a64.hash((name + "#\(round)").utf8, continuing: h)
            let digits = String(h, radix: 16)
            hex += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex
    }

    @Test func matricesMakeOneDevicePerCombination() throws {
        let s = try parse(
            """
            name: matrix
            devices:
              app-{platform}-{flavor}:
                matrix: {platform: [ios, android], flavor: [native, flutter]}
                app_version: null
            steps:
              - expect: {device: all, screen: none}
            """
        )
        #expect(
            s.devices.map(\.name) == ["app-ios-native", "app-ios-flutter", "app-android-native", "app-android-flutter"]
        )
        #expect(s.devices.allSatisfy { $0.appVersion == nil })
        #expect(s.devices[1].sdk == "flutter")
        #expect(s.requiredCapabilities.contains("flavor:flutter"))
    }

    /// A matrix that gives two devices one name is the file's mistake, said where it is: it
    /// used to pass the parser and fail the run's set-up with the adapter's refusal.
    @Test func aMatrixThatNamesTwoDevicesAlikeIsRefusedWithTheKeyItLeavesOut() {
        let template = error(
            """
            name: x
            devices:
              p-{platform}:
                matrix: {platform: [ios, android], app_version: ["1.0.0", "2.0.0"]}
            steps:
              - launch: p-{platform}
            """
        )
        #expect(
            template?.message
                == "device 'p-{platform}' names two of its devices 'p-ios': its name leaves out {app_version}, which the `matrix` varies"
        )
        #expect(template?.location.mark.line == 3)
        let repeated = error("name: x\ndevices:\n  p:\n    matrix: {platform: [ios, ios]}\nsteps: []\n")
        #expect(repeated?.message == "device 'p' names two of its devices 'p-ios': a `matrix` list repeats a value")
        let twoEntries = error(
            "name: x\ndevices:\n  p-ios: {platform: ios}\n  p:\n    matrix: {platform: [ios]}\nsteps: []\n"
        )
        #expect(twoEntries?.message == "two devices are named 'p-ios'")
    }

    /// A step over several names drops the devices they share; over one name (a device, a
    /// fleet, `all`) it keeps the entry's order.
    @Test func stepsOverSeveralNamesCountEachDeviceOnce() throws {
        let s = try parse(
            """
            name: x
            devices:
              fleet: {count: 3, platform: ios}
              solo: {platform: android}
            steps:
              - launch: all
              - launch: [fleet, fleet-2, solo, all]
              - launch: fleet
              - expect: {device: all, screen: none}
            """
        )
        let launched = s.steps.compactMap { step -> [String]? in
            if case .device(_, let devices) = step.action { return devices }
            return nil
        }
        #expect(
            launched == [
                ["fleet-1", "fleet-2", "fleet-3", "solo"], ["fleet-1", "fleet-2", "fleet-3", "solo"],
                ["fleet-1", "fleet-2", "fleet-3"],
            ]
        )
    }

    @Test func theGatewayCanOnlyRefuseTokensThatExist() {
        let e = error("name: x\ndevices:\n  p: {platform: ios}\nsteps:\n  - gateway_reject: {device: p}\n")
        #expect(e?.message == "device 'p' has no push token for the gateway to refuse")
    }

    @Test func webDevicesCannotHavePush() {
        #expect(
            error("name: x\ndevices:\n  w: {platform: web, push: true}\nsteps: []\n")?.message.contains("no push")
                == true
        )
    }

    @Test func coversIdsAreCheckedAgainstTheCatalogue() throws {
        let catalogue = try SpecCatalogue.parse(
            Array("rows:\n  - {id: check.app-start, section: s, text: t}\n".utf8),
            file: "c.yaml"
        )
        let e = error("name: x\ncovers: [check.app-strat]\ndevices: {}\nsteps: []\n", catalogue: catalogue)
        #expect(
            e?.description
                == "s.yaml:2:10: `covers` names 'check.app-strat', which is not in the spec catalogue (c.yaml) (did you mean 'check.app-start'?)"
        )
    }

    @Test func yamlSyntaxErrorsKeepTheFileLineAndColumn() {
        let e = error("name: x\ndevices: [\n")
        #expect(e?.location.file == "s.yaml")
        #expect((e?.location.mark.line ?? 0) >= 2)
    }

    @Test func jsonScenariosAreAccepted() throws {
        let s = try parse(
            #"{"name": "j", "devices": {"p": {"platform": "android"}}, "steps": [{"launch": "p"}, "lift_all", {"expect": {"device": "p", "checks": 1}}]}"#
        )
        #expect(s.steps.count == 3)
    }

    @Test func everyMistakeOfAFileIsReportedAtOnceInFileOrder() {
        let all = errors(
            """
            name: many
            tagz: [x]
            rules:
              - {name: old, type: required_update, below: "2.x"}
            devices:
              phone: {platform: ios, clock_offset: soon}
              fleet: {count: 3, platform: andriod}
            steps:
              - launch: phone
              - after: later
              - expect: {device: phone, scren: none, checks: many}
              - update_rule: {name: gone, below: "3.0.0"}
            """
        )
        #expect(
            all.map { "\($0.location.mark.line):\($0.location.mark.column)" } == [
                "2:1", "4:40", "6:40", "7:31", "10:12", "11:29", "11:50", "12:25",
            ],
            "\(all)"
        )
        #expect(all[0].message == "unknown key 'tagz' in a scenario (did you mean 'tags'?)")
        #expect(all[1].message.hasPrefix("rule 'old' would be refused by the server: /below:"), "\(all[1])")
        #expect(
            all[3].message == "unknown platform 'andriod' (did you mean 'android'?)",
            "a fleet's mistake is reported once"
        )
        #expect(all[5].message == "unknown key 'scren' in a device expectation (did you mean 'screen'?)")
        #expect(all[6].message.hasPrefix("`checks` is a count"))
        #expect(all[7].message.hasPrefix("no rule named 'gone'"))
    }

    @Test func ruleBodiesAreCheckedByTheServersDecodingAtTheirField() {
        let missing = error("name: x\ndevices: {}\nsteps:\n  - create_rule: {name: b, type: required_update}\n")
        #expect(
            missing?.message.hasPrefix("rule 'b' would be refused by the server: /below:") == true,
            "\(String(describing: missing))"
        )
        let long = error(
            "name: x\ndevices: {}\nsteps:\n  - create_rule: {name: m, type: maintenance, starts_at: +1h, ends_at: +9d}\n"
        )
        #expect(long?.message.contains("/ends_at") == true, "\(String(describing: long))")
        #expect(long?.location.mark.column == 63)
        // Expecting the refusal: the server decides at run time.
        #expect(
            errors(
                "name: x\ndevices: {}\nsteps:\n  - create_rule: {name: m, type: maintenance, starts_at: +1h, ends_at: +9d, rejected: true}\n"
            ) == []
        )
        let noType = error("name: x\ndevices: {}\nsteps:\n  - create_rule: {name: b, below: \"2.0.0\"}\n")
        #expect(noType?.message.hasPrefix("rule 'b' needs `type`") == true)
    }

    /// Issue 11's first example: `platform` for `platforms` used to give a rule for every platform.
    @Test func aMisspeltRuleFieldIsReportedAtItsKeyWithTheServersSuggestion() {
        let created = error(
            "name: x\ndevices: {}\nsteps:\n  - create_rule: {name: b, type: required_update, below: \"2.0.0\", platform: [ios]}\n"
        )
        #expect(
            created?.message.hasPrefix("rule 'b' would be refused by the server: /platform:") == true,
            "\(String(describing: created))"
        )
        #expect(created?.message.contains("did you mean 'platforms'?") == true)
        #expect(created?.location.mark.line == 4 && created?.location.mark.column == 67)
        // The server names both sides of a misspelling: the unknown key (with its suggestion) and the missing one.
        let setUp = errors(
            "name: x\nrules:\n  - {name: b, type: required_update, bellow: \"2.0.0\"}\ndevices: {}\nsteps: []\n"
        )
        #expect(setUp.count == 2, "\(setUp)")
        #expect(
            setUp.contains { $0.message.contains("/bellow:") && $0.message.contains("did you mean 'below'?") },
            "\(setUp)"
        )
        #expect(setUp.contains { $0.message.contains("/below:") }, "\(setUp)")
        let updated = errors(
            "name: x\ndevices: {}\nsteps:\n  - create_rule: {name: b, type: required_update, below: \"2.0.0\"}\n  - update_rule: {name: b, bellow: \"3.0.0\"}\n"
        )
        #expect(updated.count == 1 && updated.first?.location.mark.line == 5, "\(updated)")
        #expect(updated.first?.message.contains("did you mean 'below'?") == true)
    }

    @Test func updateRuleIsCheckedAsTheWholeBodyAndCanClearAFieldOrExpectARefusal() throws {
        let base =
            "name: x\ndevices: {}\nsteps:\n  - create_rule: {name: r, type: recommended_update, below: \"2.0.0\", becomes_required_on: +1d}\n"
        let s = try parse(
            base
                + "  - update_rule: {name: r, type: optional_update, becomes_required_on: null}\n  - update_rule: {name: r, below: \"x\", rejected: true}\n"
        )
        guard case .updateRule(let clear) = s.steps[1].action, case .updateRule(let refused) = s.steps[2].action else {
            Issue.record("not updates: \(s.steps)")
            return
        }
        let before = JSON.object([("type", "recommended_update"), ("below", "2.0.0"), ("becomes_required_on", "+1d")])
        #expect(clear.applied(to: before) == .object([("type", "optional_update"), ("below", "2.0.0")]))
        #expect(!clear.expectRejected)
        #expect(refused.expectRejected)
        #expect(refused.fields == .object([("below", "x")]), "`rejected` is the runner's, not a rule field")
        // Clearing a field the type needs is caught before the run.
        let needed = error(base + "  - update_rule: {name: r, becomes_required_on: null}\n")
        #expect(
            needed?.message.hasPrefix("rule 'r' would be refused by the server: /becomes_required_on") == true,
            "\(String(describing: needed))"
        )
        #expect(needed?.location.mark.line == 5)
        #expect(
            error(base + "  - update_rule: {name: r}\n")?.message.hasPrefix("`update_rule` names the fields to change")
                == true
        )
    }

    @Test func keysInsideExpectedStateAreCheckedSoAMisspeltOneCannotMatchNull() {
        let e = error(
            "name: x\ndevices: {p: {platform: ios}}\nsteps:\n  - expect: {device: p, optional_update: {mesage: null}}\n"
        )
        #expect(e?.message == "unknown key 'mesage' in `optional_update` (did you mean 'message'?)")
        #expect(e?.location.mark.column == 43)
        let window = error(
            "name: x\ndevices: {p: {platform: ios}}\nsteps:\n  - expect: {device: p, maintenance: [{ends: +1h}]}\n"
        )
        #expect(window?.message.hasPrefix("unknown key 'ends' in `maintenance`") == true)
        let module = error(
            "name: x\ndevices: {p: {platform: ios}}\nsteps:\n  - expect: {device: p, queued: {analitycs: 2}}\n"
        )
        #expect(module?.message == "unknown key 'analitycs' in `queued` (did you mean 'analytics'?)")
        let paused = error(
            "name: x\ndevices: {p: {platform: ios}}\nsteps:\n  - expect: {device: p, paused_modules: [analytic]}\n"
        )
        #expect(paused?.message == "unknown module 'analytic' (did you mean 'analytics'?)")
        let kind = error(
            "name: x\ndevices: {p: {platform: ios}}\nsteps:\n  - expect: {device: p, optional_update: {kind: recommended_update}}\n"
        )
        #expect(kind?.message == "unknown kind 'recommended_update' (expected one of: optional, recommended)")
        let platform = error("name: x\ndevices: {}\nsteps:\n  - expect_pushes: {platforms: {iso: 0}}\n")
        #expect(platform?.message.hasPrefix("unknown key 'iso' in `platforms`") == true)
    }

    @Test func relativeCountsAndTimesAreCheckedBeforeTheyRun() {
        let fine = errors(
            """
            name: x
            devices: {p: {platform: ios}}
            steps:
              - expect: {device: p, checks: "+1", not_modified: ">= +0", queued: {analytics: "+2"}, last_success: +6m}
              - expect: {device: p, optional_update: {becomes_required_on: +1d}, maintenance: [{starts_at: -1h, ends_at: "2026-12-02T11:00:00.000Z"}]}
              - expect: {device: p, last_success: absent, checks: present}
            """
        )
        #expect(fine == [])
        #expect(
            error("name: x\ndevices: {p: {platform: ios}}\nsteps:\n  - expect: {device: p, checks: \"+one\"}\n")?
                .message.hasPrefix("`checks` is a count") == true
        )
        #expect(
            error("name: x\ndevices: {p: {platform: ios}}\nsteps:\n  - expect: {device: p, last_success: soon}\n")?
                .message.hasPrefix("`last_success` is a time") == true
        )
        #expect(
            error("name: x\ndevices: {}\nsteps:\n  - expect_server: {checks: \"+1\"}\n")?.message.hasPrefix(
                "`checks` counts the server's journal"
            ) == true
        )
    }

    @Test func coversIdsAreCheckedAgainstTheBuiltInCatalogueByDefault() {
        #expect(SpecCatalogue.builtIn.rows.count >= 30)
        #expect(SpecCatalogue.builtIn.row("check.app-start") != nil)
        let e = error("name: x\ncovers: [offline.deadline-pases]\ndevices: {}\nsteps: []\n")
        #expect(
            e?.description
                == "s.yaml:2:10: `covers` names 'offline.deadline-pases', which is not in the spec catalogue (did you mean 'offline.deadline-passes'?)"
        )
    }

    @Test func aStepOverNoDeviceIsAnErrorNotAVacuousPass() {
        let e = error("name: x\ndevices: {}\nsteps:\n  - expect: {device: all, screen: none}\n")
        #expect(e?.message == "'all' names no device; a step needs at least one")
        // A device entry that did not parse is reported once, not again at each step naming it.
        let broken = errors("name: x\ndevices:\n  p: {platform: andriod}\nsteps:\n  - launch: p\n")
        #expect(broken.count == 1, "\(broken)")
    }

    @Test func aMisspeltCapabilityIsAnErrorNotASilentSkip() {
        let e = error("name: x\nneeds: [ofline_deadline]\ndevices: {}\nsteps: []\n")
        #expect(
            e?.description
                == "s.yaml:2:9: unknown adapter capability 'ofline_deadline' (did you mean 'offline_deadline'?)"
        )
    }

    @Test func setUpRulesCannotExpectARefusal() {
        let e = error(
            "name: x\nrules:\n  - {name: m, type: maintenance, starts_at: +1h, ends_at: +9d, rejected: true}\ndevices: {}\nsteps: []\n"
        )
        #expect(e?.message.hasPrefix("`rejected` belongs on a `create_rule` step") == true, "\(String(describing: e))")
    }

    @Test func durationsReadAsPeopleWriteThem() {
        #expect(TimeSyntax.milliseconds("90s") == 90_000)
        #expect(TimeSyntax.milliseconds("1h30m") == 5_400_000)
        #expect(TimeSyntax.milliseconds("7d") == 604_800_000)
        #expect(TimeSyntax.milliseconds("250ms") == 250)
        #expect(TimeSyntax.milliseconds("-10m") == -600_000)
        #expect(TimeSyntax.milliseconds("45") == 45_000)
        #expect(TimeSyntax.milliseconds("5 minutes") == nil)
        #expect(TimeSyntax.relative(3_723_000) == "+01h02m03s")
        #expect(TimeSyntax.relative(604_800_000) == "+7d00h00m00s")
    }

    // MARK: a verdict that could not be no is an error (Verdict)

    @Test func aScenarioWhoseNoStepCanFailIsAnErrorAtItsSteps() {
        let empty = error("name: x\ndevices:\n  p: {platform: ios}\nsteps: []\n")
        #expect(empty?.location.description == "s.yaml:4:1")
        #expect(empty?.message.hasPrefix("no step of this scenario can fail") == true, "\(String(describing: empty))")
        let noExpectation = error(
            "name: x\ndevices:\n  p: {platform: ios}\nsteps:\n  - launch: p\n  - after: 5m\n  - create_rule: {name: b, type: required_update, below: \"2.0.0\"}\n"
        )
        #expect(noExpectation?.message.contains("add an expectation") == true)
        // A rule step that expects a refusal can fail: it is a verdict.
        #expect(
            errors(
                "name: x\ndevices: {}\nsteps:\n  - create_rule: {name: m, type: maintenance, starts_at: +1h, ends_at: +9d, rejected: true}\n"
            ) == []
        )
    }

    @Test func anExpectationThatChecksNothingIsAnErrorAtItsStep() {
        let base =
            "name: x\ndevices:\n  p: {platform: ios}\nsteps:\n  - launch: p\n  - expect: {device: p, checks: 1}\n"
        for (step, why) in [
            ("expect_pushes: {}", "names no value"), ("expect_ingest: {}", "names no value"),
            ("expect_server: {}", "names no value"),
            ("expect_server: {device: p}", "names no value"), ("expect: {device: p, screen: any}", "matches whatever"),
            ("expect: {device: p, checks: \">= 0\", queued: {}}", "matches whatever"),
            ("expect_pushes: {count: \">= 0\", tokens: any}", "matches whatever"),
            ("expect_ingest: {analytics: \">= +0\"}", "matches whatever"),
            ("until: {device: p, screen: any, within: 1m}", "holds at once"),
        ] {
            let e = error(base + "  - " + step + "\n")
            #expect(e?.location.description == "s.yaml:7:5", "\(step): \(String(describing: e))")
            #expect(
                e?.message.contains("checks nothing") == true && e?.message.contains(why) == true,
                "\(step): \(String(describing: e))"
            )
        }
        // Each of these can be no.
        for step in [
            "expect_pushes: {count: 0}", "expect_pushes: {sent_at: []}", "expect_server: {last: {}}",
            "expect: {device: p, checks: \">= 1\"}",
            "expect: {device: p, optional_update: {}}", "expect_ingest: {analytics: \"> 0\"}",
            "expect: {device: p, checks: \">= +1\"}",
        ] {
            #expect(errors(base + "  - " + step + "\n") == [], "\(step)")
        }
    }
}
