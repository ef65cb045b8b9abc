import Foundation
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// `--html`: the timeline the runner samples, and the page drawn from it.
@Suite struct HTMLReportTests {
    static let failing = """
        name: offline, then a block the scenario wrongly expects to be optional
        rules:
          - {name: nudge, type: optional_update, below: "1.0"}
        devices:
          phone: {platform: ios, app_version: "2.3.0", push: true}
          tab: {platform: web, app_version: "2.3.0"}
        steps:
          - launch: [phone, tab]
          - offline: tab
          - after: 10m
          - online: tab
          - create_rule: {name: block, type: required_update, below: "2.4.0"}
          - after: 1m
          - expect: {device: phone, screen: optional_update}
        """

    static let fleet = """
        name: a fleet is drawn as one lane per group
        devices:
          ios: {count: 120, platform: ios, app_version: ["2.3.0", "2.5.0"], push: true}
          solo: {platform: android, app_version: "2.3.0", push: true}
        steps:
          - launch: all
          - create_rule: {name: block, type: required_update, below: "2.4.0"}
          - after: 2m
          - expect: {device: solo, screen: required_update}
        """

    func run(_ texts: [String], record: Bool = true) throws -> SuiteResult {
        let scenarios = try texts.enumerated().map { try Scenario.parse(Array($1.utf8), file: "s\($0).yaml") }
        var options = SuiteOptions()
        options.recordTimelines = record
        return SuiteRunner(options: options).run(
            ScenarioSuite(scenarios: scenarios),
            in: InProcessEnvironment(viaGateway: false)
        )
    }

    @Test func theTimelineHoldsScreensChecksPushesOfflineStretchesChangesAndTheFailure() throws {
        let outcome = try #require(try run([Self.failing]).outcomes.first)
        #expect(outcome.status == .failed)
        let timeline = try #require(outcome.timeline)
        #expect(timeline.lanes.map(\.name) == ["phone", "tab"])
        let phone = timeline.lanes[0]
        let tab = timeline.lanes[1]
        #expect(phone.screens.first?.counts == ["none": 1])
        #expect(phone.screens.last?.counts == ["required_update": 1], "\(phone.screens)")
        #expect(phone.checks.first?.status == 200)
        #expect(phone.pushes.contains { $0.outcome == .received })
        #expect(tab.offline.map(\.count) == [1, 0])
        #expect(tab.offline.map(\.at) == [0, 600_000])
        #expect(timeline.serverEvents.map(\.label).contains("create required update block"))
        #expect(timeline.serverEvents.first?.at == 0, "the rule from before time 0 is shown at 0")
        #expect(timeline.pushesSent.count == 1)
        let failure = try #require(timeline.failure)
        #expect(failure.step == 7)
        #expect(failure.at == 660_000)
        #expect(failure.message.contains("expected \"optional_update\", seen \"required_update\""))
        #expect(timeline.durationMilliseconds == 660_000)
    }

    @Test func thePageIsSelfContainedAndMarksTheFailingStep() throws {
        let result = try run([Self.failing, Self.fleet])
        let html = HTMLReport.html(result)
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(html.components(separatedBy: "<svg class=\"timeline\"").count == 3)
        #expect(html.contains("<section class=\"scenario failed\""))
        #expect(html.contains("<g class=\"failure\">"))
        #expect(html.contains("✘ step 7 at +00h11m00s"))
        #expect(html.contains("expected &quot;optional_update&quot;, seen &quot;required_update&quot;"))
        #expect(html.contains("class=\"offline\""))
        #expect(html.contains("state-required_update"))
        // Nothing to fetch: no script, no stylesheet link, no URL but the SVG namespace.
        let rest = html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
        #expect(
            !rest.contains("http://") && !rest.contains("https://") && !rest.contains("<script")
                && !rest.contains("<link")
        )
    }

    @Test func aLargeFleetIsOneLanePerGroupWithSampledScreens() throws {
        let outcome = try #require(try run([Self.fleet]).outcomes.first)
        #expect(outcome.status == .passed, "\(outcome.failure)")
        let timeline = try #require(outcome.timeline)
        #expect(timeline.lanes.map(\.name) == ["ios", "solo"])
        #expect(timeline.lanes[0].deviceCount == 120)
        #expect(timeline.sampledPerLane == TimelineRecorder.samplesPerLane)
        let last = try #require(timeline.lanes[0].screens.last?.counts)
        #expect(last.values.reduce(0, +) == TimelineRecorder.samplesPerLane)
        #expect(last["required_update"] == 20 && last["none"] == 20, "\(last)")
        // Checks are counted for every device of the group, not only the sampled ones.
        #expect(timeline.lanes[0].checks.count >= 120)
    }

    @Test func withoutHTMLNothingIsRecorded() throws {
        let outcome = try #require(try run([Self.failing], record: false).outcomes.first)
        #expect(outcome.timeline == nil)
    }
}
