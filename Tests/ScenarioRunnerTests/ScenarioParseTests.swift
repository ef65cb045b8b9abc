import JSON
import Testing
@testable import ScenarioRunner

@Suite struct ScenarioParseTests {
    func parse(_ text: String, catalogue: SpecCatalogue? = nil) throws(ScenarioError) -> Scenario {
        try Scenario.parse(Array(text.utf8), file: "s.yaml", catalogue: catalogue)
    }

    func error(_ text: String, catalogue: SpecCatalogue? = nil) -> ScenarioError? {
        do {
            _ = try parse(text, catalogue: catalogue)
            return nil
        } catch {
            return error
        }
    }

    @Test func aWellFormedScenarioBecomesATypedModel() throws {
        let s = try parse("""
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
            """)
        #expect(s.name == "required update")
        #expect(s.devices == [DeviceSpec(name: "phone", platform: "ios", flavor: "native", appVersion: "2.3.0", build: nil, sdk: "swift",
                                         sdkVersion: "1.5.0", pushToken: DeviceSpec.defaultToken(name: "phone", platform: "ios"), enabled: true, clockOffsetSeconds: -7200)])
        #expect(s.steps.count == 4)
        if case .after(let ms) = s.steps[1].action { #expect(ms == 5_400_000) } else { Issue.record("not after") }
        #expect(s.steps[2].location.description == "s.yaml:10:5")
        #expect(s.requiredCapabilities == ["platform:ios", "push"])
    }

    @Test func unknownTopLevelKeysGetASuggestionAtTheirPosition() {
        let e = error("name: x\ndevics: {}\nsteps: []\n")
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
        let rule = error("name: x\ndevices: {}\nrules:\n  - {name: m, type: maintenance, starts_at: tomorrow, ends_at: +1h}\nsteps: []\n")
        #expect(rule?.message.contains("starts_at") == true)
        let type = error("name: x\ndevices: {}\nrules:\n  - {name: m, type: maintenence}\nsteps: []\n")
        #expect(type?.message == "unknown rule type 'maintenence' (did you mean 'maintenance'?)")
    }

    @Test func stepsMayOnlyTouchRulesThatExist() {
        let e = error("name: x\ndevices: {}\nsteps:\n  - delete_rule: block\n")
        #expect(e?.message.hasPrefix("no rule named 'block'") == true)
    }

    @Test func fleetsExpandAndCycleListValues() throws {
        let s = try parse("""
            name: fleet
            devices:
              fleet: {count: 12, platform: [ios, android, web], app_version: ["1.0.0", "2.0.0"]}
            steps:
              - launch: fleet
            """)
        #expect(s.devices.count == 12)
        #expect(s.devices[0].name == "fleet-01")
        #expect(s.devices.map(\.platform).prefix(4) == ["ios", "android", "web", "ios"])
        #expect(s.devices[1].appVersion == "2.0.0")
        #expect(s.groups["fleet"]?.count == 12)
        #expect(s.groups["all"]?.count == 12)
    }

    @Test func matricesMakeOneDevicePerCombination() throws {
        let s = try parse("""
            name: matrix
            devices:
              app-{platform}-{flavor}:
                matrix: {platform: [ios, android], flavor: [native, flutter]}
                app_version: null
            steps: []
            """)
        #expect(s.devices.map(\.name) == ["app-ios-native", "app-ios-flutter", "app-android-native", "app-android-flutter"])
        #expect(s.devices.allSatisfy { $0.appVersion == nil })
        #expect(s.devices[1].sdk == "flutter")
        #expect(s.requiredCapabilities.contains("flavor:flutter"))
    }

    @Test func theGatewayCanOnlyRefuseTokensThatExist() {
        let e = error("name: x\ndevices:\n  p: {platform: ios}\nsteps:\n  - gateway_reject: {device: p}\n")
        #expect(e?.message == "device 'p' has no push token for the gateway to refuse")
    }

    @Test func webDevicesCannotHavePush() {
        #expect(error("name: x\ndevices:\n  w: {platform: web, push: true}\nsteps: []\n")?.message.contains("no push") == true)
    }

    @Test func coversIdsAreCheckedAgainstTheCatalogue() throws {
        let catalogue = try SpecCatalogue.parse(Array("rows:\n  - {id: check.app-start, section: s, text: t}\n".utf8), file: "c.yaml")
        let e = error("name: x\ncovers: [check.app-strat]\ndevices: {}\nsteps: []\n", catalogue: catalogue)
        #expect(e?.description == "s.yaml:2:10: `covers` names 'check.app-strat', which is not in the spec catalogue (did you mean 'check.app-start'?)")
    }

    @Test func yamlSyntaxErrorsKeepTheFileLineAndColumn() {
        let e = error("name: x\ndevices: [\n")
        #expect(e?.location.file == "s.yaml")
        #expect((e?.location.mark.line ?? 0) >= 2)
    }

    @Test func jsonScenariosAreAccepted() throws {
        let s = try parse(#"{"name": "j", "devices": {"p": {"platform": "android"}}, "steps": [{"launch": "p"}, "lift_all"]}"#)
        #expect(s.steps.count == 2)
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
}
