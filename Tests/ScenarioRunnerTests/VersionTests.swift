import AdapterProtocol
import Foundation
import JSON
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// The release in one place, written into reports; a scenario file's `requires_runner`; the
/// adapter protocol's version in `hello` (README, "Versions and compatibility").
@Suite struct VersionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theReleaseIsASemanticVersionWithAChangelogEntry() throws {
        let current = try #require(ReleaseVersion(Release.version))
        #expect(current.description == Release.version)
        #expect(Release.current == current)
        let changelog = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let headings = changelog.split(separator: "\n").filter { $0.hasPrefix("## ") }
        #expect(
            headings.first?.hasPrefix("## \(Release.version)") == true,
            "the newest entry is this release: \(headings)"
        )
    }

    @Test func releaseNumbersParseStrictlyAndCompareByPart() {
        #expect(ReleaseVersion("0.10.0")! > ReleaseVersion("0.9.9")!)
        #expect(ReleaseVersion("1.0.0")! > ReleaseVersion("0.99.0")!)
        for bad in ["1.0", "1.0.0.0", "v1.0.0", "1.x.0", "", "1..0", "-1.0.0", "1.0.0-beta"] {
            #expect(ReleaseVersion(bad) == nil, "\(bad)")
        }
    }

    static func file(requiring version: String, extra: String = "") -> String {
        """
        requires_runner: \(version)
        name: needs a runner
        \(extra)devices:
          phone: {platform: ios}
        steps:
          - launch: phone
          - expect: {device: phone, checks: 1}

        """
    }

    @Test func aFileForThisRunnerOrAnOlderOneParses() throws {
        #expect(
            try Scenario.parse(Array(Self.file(requiring: Release.version).utf8), file: "a.yaml").name
                == "needs a runner"
        )
        #expect(
            try Scenario.parse(Array(Self.file(requiring: "\"0.0.1\"").utf8), file: "a.yaml").name == "needs a runner"
        )
    }

    @Test func aFileForANewerRunnerIsOneErrorNamingBothVersionsNotAParseFailure() throws {
        let current = Release.current
        let newer = ReleaseVersion(major: current.major, minor: current.minor + 1, patch: 0)
        // Written for the newer runner: a key and a step this one does not know.
        let text =
            Self.file(requiring: newer.description, extra: "isolation: per_device\n")
            + "  - teleport: phone\n"
        let errors = #expect(throws: ScenarioFileErrors.self) { try Scenario.parse(Array(text.utf8), file: "new.yaml") }
        #expect(errors?.errors.count == 1, "\(errors?.description ?? "")")
        #expect(
            errors?.description
                == "new.yaml:1:18: this file needs lerix-mock \(newer) or newer (requires_runner); this runner is lerix-mock \(Release.version): upgrade lerix-mock to run it"
        )
    }

    @Test func aMalformedRequiredRunnerPointsAtItself() throws {
        for (written, says) in [
            ("latest", "not 'latest'"), ("1.0", "not '1'"), ("[1]", "not a list"),
        ] {
            let errors = #expect(throws: ScenarioFileErrors.self) {
                try Scenario.parse(Array(Self.file(requiring: written).utf8), file: "bad.yaml")
            }
            #expect(errors?.description.hasPrefix("bad.yaml:1:18: requires_runner is a release") == true)
            #expect(errors?.description.contains(says) == true, "\(errors?.description ?? "")")
        }
    }

    @Test func reportsSayWhichReleaseWroteThem() {
        let result = SuiteResult(outcomes: [], adapterName: "fake 0")
        let xml = JUnitReport.xml(result)
        #expect(
            xml.contains(
                #"<properties><property name="lerix-mock" value="\#(Release.version)"/><property name="adapter" value="fake 0"/></properties>"#
            )
        )
        #expect(JUnitReport.xml(SuiteResult(outcomes: [], adapterName: "")).contains(#"name="lerix-mock""#))
        let html = HTMLReport.html(result)
        #expect(html.contains(#"<meta name="generator" content="lerix-mock \#(Release.version)">"#))
        #expect(html.contains("· lerix-mock \(Release.version)</p>"))
    }

    /// An adapter whose `hello` lists the protocols it speaks.
    final class VersionedAdapter: AdapterConnection {
        let protocols: JSON
        var hellos: [JSON] = []
        init(protocols: JSON) { self.protocols = protocols }
        func send(_ command: JSON) throws(AdapterFailure) -> JSON {
            if command["cmd"] == "hello" { hellos.append(command) }
            return .object([("ok", true), ("name", "future"), ("version", "9.0"), ("protocols", protocols)])
        }
        func close() {}
    }

    final class VersionedEnvironment: ScenarioEnvironment {
        let adapter: VersionedAdapter
        var worlds = 0
        init(protocols: JSON) { adapter = VersionedAdapter(protocols: protocols) }
        func hello() throws -> JSON { try adapter.command(.hello(protocolVersion: AdapterProtocolVersion.current)) }
        func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
            worlds += 1
            throw AdapterFailure("no world expected")
        }
    }

    @Test func anAdapterSpeakingAnotherProtocolFailsEveryScenarioNamingBothVersions() throws {
        let scenario = try Scenario.parse(Array(Self.file(requiring: "0.0.1").utf8), file: "a.yaml")
        let environment = VersionedEnvironment(protocols: [2, 3])
        let result = SuiteRunner(options: SuiteOptions()).run(ScenarioSuite(scenarios: [scenario]), in: environment)
        #expect(environment.adapter.hellos.first?["protocol"] == .number(Double(AdapterProtocolVersion.current)))
        #expect(environment.worlds == 0)
        #expect(result.errors == 1)
        #expect(
            result.outcomes.first?.failureSummary.hasSuffix(
                "the adapter future 9.0 speaks adapter protocol 2, 3; the runner speaks \(AdapterProtocolVersion.current)"
            ) == true,
            "\(result.outcomes.first?.failureSummary ?? "")"
        )
        let garbled = VersionedEnvironment(protocols: "one")
        let refused = SuiteRunner(options: SuiteOptions()).run(ScenarioSuite(scenarios: [scenario]), in: garbled)
        #expect(refused.outcomes.first?.failureSummary.contains("not a list of 1 to 16 whole numbers") == true)
    }

    @Test func theSwiftAdapterSpeaksTheRunnersProtocol() throws {
        let hello = try InProcessEnvironment(viaGateway: false).hello()
        #expect(hello["protocols"]?.arrayValue?.contains(.number(Double(AdapterProtocolVersion.current))) == true)
        #expect(AdapterProtocolVersion.mismatch(inHello: hello) == nil)
    }
}
