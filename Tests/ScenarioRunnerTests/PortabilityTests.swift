import TestSupport
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// Portable by default: an adapter of one platform runs every bundled scenario but those the spec
/// makes specific to other platforms, and each skip says which platforms would do and why.
@Suite struct PortabilityTests {
    /// The bundled scenarios an adapter emulating only `platform` skips, by file name, and the suite's result.
    static func skipped(emulating platform: String) throws -> (skipped: Set<String>, result: SuiteResult) {
        let suite = try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder])
        let environment = LoopbackEnvironment(
            adapterCommand: "'\(ServerProcess.binary.path)' adapter --quiet --platforms \(platform)",
            adapterOptions: .onALoadedMachine
        )
        let result = SuiteRunner(options: SuiteOptions()).run(suite, in: environment)
        let skipped = result.outcomes.filter { if case .skipped = $0.status { true } else { false } }
        return (Set(skipped.map { String($0.file.split(separator: "/").last ?? "") }), result)
    }

    /// Web pages only (a tab's own moments), the native apps off Android that keep a deadline
    /// optional, and the two scenarios whose point is all four platforms at once.
    @Test func anAndroidOnlyAdapterSkipsOnlyWhatTheSpecMakesSpecificToOtherPlatforms() throws {
        let (skipped, result) = try Self.skipped(emulating: "android")
        #expect(result.failed == 0 && result.errors == 0, "\(BundledSuiteTests.report(result))")
        #expect(
            skipped == [
                "web-tab-visible-and-back-online.yaml", "deadline-stays-optional-offline-elsewhere.yaml",
                "mixed-platform-push-loop.yaml", "fleet-1000-devices.yaml",
            ],
            "\(skipped.sorted())"
        )
        let web = result.outcomes.first { $0.file.hasSuffix("web-tab-visible-and-back-online.yaml") }
        guard case .skipped(let reason)? = web?.status else { return }
        #expect(reason.contains("device 'tab' may run on web only; the adapter emulates android (why: "), "\(reason)")
    }

    /// macOS: the web's and Android's own rules are skipped, everything else runs.
    @Test func aMacOSOnlyAdapterSkipsOnlyWhatTheSpecMakesSpecificToOtherPlatforms() throws {
        let (skipped, result) = try Self.skipped(emulating: "macos")
        #expect(result.failed == 0 && result.errors == 0, "\(BundledSuiteTests.report(result))")
        #expect(
            skipped == [
                "web-tab-visible-and-back-online.yaml", "deadline-passes-offline.yaml",
                "deadline-turned-required-keeps-blocking.yaml", "mixed-platform-push-loop.yaml",
                "fleet-1000-devices.yaml",
            ],
            "\(skipped.sorted())"
        )
    }

    /// A scenario that binds a device to some platforms says why (its skips quote it); the rest
    /// of the suite is portable.
    @Test func everyBundledScenarioBindingADeviceToSomePlatformsSaysWhy() throws {
        let suite = try ScenarioSuite.load(paths: [BundledSuiteTests.scenariosFolder])
        let pushPlatforms = Scenario.platforms.filter { $0 != "web" }
        for scenario in suite.scenarios {
            let bound = scenario.devices.filter { device in
                let acceptable = device.platformChoices ?? [device.platform]
                return acceptable != Scenario.platforms && !(device.pushToken != nil && acceptable == pushPlatforms)
            }
            #expect(
                bound.isEmpty || scenario.platformReason != nil,
                "\(scenario.file): \(bound.map(\.name).prefix(3)) bound without `platform_reason`"
            )
        }
    }
}
