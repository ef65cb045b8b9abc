import JSON
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// What spec scenarios need from the runner, against the real MockServer and Swift SDK:
/// rule updates that clear a field or expect a refusal, server refusals as clear errors, and
/// expectations relative to time 0 and to the device's previous expectation.
@Suite struct RuleStepAndRelativeExpectationTests {
    func run(_ text: String) throws -> ScenarioOutcome {
        let scenario = try Scenario.parse(Array(text.utf8), file: "r.yaml")
        let result = SuiteRunner(options: SuiteOptions(verbose: true)).run(
            ScenarioSuite(scenarios: [scenario]),
            in: InProcessEnvironment(viaGateway: false)
        )
        return try #require(result.outcomes.first)
    }

    @Test func updateRuleClearsAFieldAndTheDeviceSeesIt() throws {
        let outcome = try run(
            """
            name: clear a deadline
            devices:
              phone: {platform: android, app_version: "1.0.0"}
            steps:
              - create_rule: {name: nudge, type: recommended_update, below: "2.0.0", becomes_required_on: +1d}
              - launch: phone
              - expect: {device: phone, screen: optional_update, optional_update: {kind: recommended, becomes_required_on: +1d}}
              - update_rule: {name: nudge, type: optional_update, becomes_required_on: null}
              - refresh: phone
              - expect: {device: phone, screen: optional_update, optional_update: {kind: optional, becomes_required_on: null}}
              - after: 2d
              - expect: {device: phone, screen: optional_update}
            """
        )
        #expect(outcome.status == .passed, "\(outcome.failure)\n\(outcome.log.joined(separator: "\n"))")
    }

    @Test func updateRuleCanExpectARefusalAndTheRuleStaysAsItWas() throws {
        let refused = try run(
            """
            name: a window too long
            devices:
              phone: {platform: ios}
            steps:
              - create_rule: {name: window, type: maintenance, starts_at: +1h, ends_at: +2h}
              - update_rule: {name: window, ends_at: +9d, rejected: true}
              - launch: phone
              - expect: {device: phone, maintenance: [{rule: window, ends_at: +2h}]}
            """
        )
        #expect(refused.status == .passed, "\(refused.failure)\n\(refused.log.joined(separator: "\n"))")
        #expect(refused.log.contains { $0.contains("refused as expected") })

        let accepted = try run(
            """
            name: a refusal that does not come
            devices: {}
            steps:
              - create_rule: {name: window, type: maintenance, starts_at: +1h, ends_at: +2h}
              - update_rule: {name: window, ends_at: +3h, rejected: true}
            """
        )
        #expect(accepted.status == .failed)
        #expect(
            accepted.failure.contains("the change to rule 'window': expected the server to refuse it (4xx), seen 200"),
            "\(accepted.failure)"
        )
    }

    @Test func aRefusalTheRunnerCouldNotForeseeNamesEachFieldTheServerObjectedTo() throws {
        let scenario = try Scenario.parse(
            Array(
                """
                name: refused
                devices: {}
                steps:
                  - create_rule: {name: high, type: required_update, below: "9.9.9"}
                  - expect_pushes: {count: 0}
                """.utf8
            ),
            file: "f.yaml"
        )
        let result = SuiteRunner(options: SuiteOptions()).run(
            ScenarioSuite(scenarios: [scenario]),
            in: FakeEnvironment()
        )
        let outcome = try #require(result.outcomes.first)
        #expect(outcome.status == .failed)
        #expect(outcome.failure.contains("step 1 at f.yaml:4:5"), "\(outcome.failure)")
        #expect(
            outcome.failure.contains(
                "creating rule 'high': the server refused it with 422: the rule breaks 1 constraint"
            ),
            "\(outcome.failure)"
        )
        #expect(outcome.failure.contains("/below: this server blocks no version above 9"))
        #expect(outcome.failure.contains("rejected: true"))
    }

    @Test func aSetUpRuleTheServerRefusesIsAnErrorNamingTheRuleAndField() throws {
        let scenario = try Scenario.parse(
            Array(
                """
                name: refused at set-up
                rules:
                  - {name: high, type: required_update, below: "9.9.9"}
                devices: {}
                steps:
                  - expect_pushes: {count: 0}
                """.utf8
            ),
            file: "g.yaml"
        )
        let result = SuiteRunner(options: SuiteOptions()).run(
            ScenarioSuite(scenarios: [scenario]),
            in: FakeEnvironment()
        )
        let outcome = try #require(result.outcomes.first)
        #expect(outcome.status == .error, "no verdict was reached: the scenario never started")
        #expect(
            outcome.failure.contains("rule 'high' at g.yaml:3:5: the server refused it with 422"),
            "\(outcome.failure)"
        )
        #expect(outcome.failure.contains("/below: this server blocks no version above 9"))
        #expect(JUnitReport.xml(result).contains("<error message=\"setting up: "))
    }

    @Test func countsRelativeToThePreviousExpectationAndTimesRelativeToTimeZero() throws {
        let outcome = try run(
            """
            name: relative
            devices:
              phone: {platform: ios, clock_offset: -2h}
            steps:
              - launch: phone
              - expect: {device: phone, checks: "+1", last_success: +0s}
              - after: 6m
              - foreground: phone
              - expect: {device: phone, checks: "+1", last_success: +6m}
              - refresh: phone
              - refresh: phone
              - expect: {device: phone, checks: "+2", not_modified: ">= +2"}
              - until: {device: phone, checks: "+0", within: 1m}
            """
        )
        #expect(outcome.status == .passed, "\(outcome.failure)\n\(outcome.log.joined(separator: "\n"))")
    }

    /// Each device of a fleet counts from what its own previous expectation saw, and only the
    /// devices with a clock offset read their times on it, though the fleet shares one expectation.
    @Test func aFleetCountsAndReadsTimesDeviceByDevice() throws {
        let outcome = try run(
            """
            name: relative fleet
            devices:
              fleet: {count: 3, platform: ios, clock_offset: [0, -2h, 0]}
            steps:
              - launch: fleet
              - refresh: fleet-2
              - refresh: fleet-3
              - refresh: fleet-3
              - expect: {device: fleet, checks: ">= 1", last_success: +0s}
              - after: 6m
              - refresh: fleet
              - expect: {device: fleet, checks: "+1", last_success: +6m}
              - expect: {device: [fleet-1, fleet-3], checks: "<= +0"}
            """
        )
        #expect(outcome.status == .passed, "\(outcome.failure)\n\(outcome.log.joined(separator: "\n"))")

        let failed = try run(
            """
            name: relative fleet failure
            devices:
              fleet: {count: 3, platform: ios}
            steps:
              - launch: fleet
              - refresh: fleet-2
              - expect: {device: fleet, checks: ">= 1"}
              - refresh: fleet
              - expect: {device: fleet, checks: 2}
            """
        )
        #expect(failed.status == .failed)
        #expect(failed.failure.contains("1 of 3 devices differ"), "\(failed.failure)")
        #expect(failed.failure.contains("fleet-2: checks: expected 2, seen 3"), "\(failed.failure)")
    }

    @Test func onlyAnExpectationWithACountFromThePreviousKeepsCounts() throws {
        func expectation(_ fields: String) throws -> ScenarioLanguage.Expectation {
            let scenario = try Scenario.parse(
                Array(
                    "name: e\ndevices: {phone: {platform: ios}}\nsteps:\n  - expect: {device: phone, \(fields)}\n".utf8
                ),
                file: "e.yaml"
            )
            let action = try #require(scenario.steps.first).action
            guard case .expect(let e) = action else {
                Issue.record("\(fields) is not read as an expectation")
                return .ingest(JSONObject())
            }
            return e
        }
        for relative in [#"checks: "+1""#, #"not_modified: ">= +2""#, #"queued: {analytics: "+3"}"#] {
            #expect(try expectation(relative).countsFromPrevious, "\(relative)")
        }
        for absolute in [
            "checks: 2", #"checks: ">= 2""#, "screen: none", "last_success: +6m", "queued: {analytics: 1}",
        ] {
            #expect(try !expectation(absolute).countsFromPrevious, "\(absolute)")
        }
    }

    @Test func aRelativeCountThatDoesNotHoldSaysWhatItCountedFrom() throws {
        let outcome = try run(
            """
            name: relative failure
            devices:
              phone: {platform: ios}
            steps:
              - launch: phone
              - refresh: phone
              - expect: {device: phone, checks: 2}
              - refresh: phone
              - expect: {device: phone, checks: "+2"}
            """
        )
        #expect(outcome.status == .failed)
        #expect(
            outcome.failure.contains(
                #"phone: checks: expected 4, seen 3 (checks "+2" counts from 2 at the previous expectation)"#
            ),
            "\(outcome.failure)"
        )
    }

    @Test func aRelativeTimeThatDoesNotHoldFails() throws {
        let outcome = try run(
            """
            name: relative time failure
            devices:
              phone: {platform: ios}
            steps:
              - launch: phone
              - after: 6m
              - expect: {device: phone, last_success: +6m}
            """
        )
        #expect(outcome.status == .failed)
        #expect(outcome.failure.contains("last_success: expected"), "\(outcome.failure)")
    }
}
