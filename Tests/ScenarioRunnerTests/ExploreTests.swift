import AdapterProtocol
import Foundation
import JSON
import MockServer
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// `explore`: the generator, the two judges, shrinking and the written files, end to end in
/// process (a deliberately wrong SDK is the in-process Swift SDK with a distorted `state`).
@Suite struct ExploreTests {
    static let every: Set<String> = [
        "platform:ios", "platform:android", "platform:macos", "platform:web", "flavor:flutter", "push", "refresh",
        "track", "install", "clock_offset",
    ]

    @Test func sameSeedAndRunDrawTheSameHistoryAndOtherRunsAnother() {
        let generator = HistoryGenerator(platform: "ios", capabilities: Self.every)
        #expect(generator.history(seed: 7, run: 3) == generator.history(seed: 7, run: 3))
        #expect(generator.history(seed: 7, run: 3) != generator.history(seed: 7, run: 4))
        #expect(generator.history(seed: 7, run: 3) != generator.history(seed: 8, run: 3))
        #expect(generator.history(seed: 7, run: 3).moves.count == 30)
    }

    @Test func historiesUseTheWholeVocabularyButOnlyWhatTheAdapterCanTake() {
        let full = HistoryGenerator(platform: "android", capabilities: Self.every)
        var kinds: Set<String> = []
        for run in 0..<200 {
            for move in full.history(seed: 1, run: run).moves { kinds.insert(Self.kind(move)) }
        }
        let vocabulary = [
            "launch", "foreground", "background", "terminate", "refresh", "later", "skip", "push", "network", "install",
            "track", "set_clock", "create:required_update", "create:optional_update", "create:recommended_update",
            "create:maintenance", "create:sdk_switch", "update", "delete", "lift_all", "fault:status", "fault:reset",
            "fault:malformed", "fault:wrong_types", "clear_faults", "after",
        ]
        for kind in vocabulary { #expect(kinds.contains(kind), "never drawn: \(kind)") }

        let web = HistoryGenerator(platform: "web", capabilities: ["platform:web"])
        for run in 0..<100 {
            for move in web.history(seed: 1, run: run).moves {
                #expect(!["refresh", "push", "install", "track", "set_clock"].contains(Self.kind(move)))
            }
        }
    }

    /// The runs of moves a spec row needs come together often (motifs), not only when
    /// independent draws happen to line them up: a return to the foreground after a wait, a
    /// fault followed by a check, Skip or Later after a check.
    @Test func historiesPutTogetherTheShapesSpecRowsNeed() {
        let generator = HistoryGenerator(platform: "web", capabilities: Self.every)
        var leaveAndReturn = 0
        var faultThenCheck = 0
        var promptAnswered = 0
        for run in 0..<100 {
            let kinds = generator.history(seed: 1, run: run).moves.map(Self.kind)
            func has(_ shape: [String]) -> Bool {
                kinds.indices.contains { i in
                    i + shape.count <= kinds.count
                        && zip(shape, kinds[i...]).allSatisfy { want, seen in seen.hasPrefix(want) }
                }
            }
            if has(["background", "after", "foreground"]) { leaveAndReturn += 1 }
            if has(["fault:", "refresh"]) || has(["fault:", "terminate", "launch"]) { faultThenCheck += 1 }
            if has(["refresh", "skip"]) || has(["refresh", "later"]) || has(["launch", "skip"])
                || has(["launch", "later"])
            {
                promptAnswered += 1
            }
        }
        #expect(leaveAndReturn >= 30, "\(leaveAndReturn) of 100 histories leave and return")
        #expect(faultThenCheck >= 30, "\(faultThenCheck) of 100 histories check right after a fault")
        #expect(promptAnswered >= 30, "\(promptAnswered) of 100 histories answer a prompt right after a check")
    }

    static func kind(_ move: HistoryMove) -> String {
        switch move {
        case .app(let c): return c.rawValue
        case .network: return "network"
        case .install: return "install"
        case .track: return "track"
        case .setClock: return "set_clock"
        case .createRule(_, let body): return "create:" + (body["type"]?.stringValue ?? "")
        case .updateRule: return "update"
        case .deleteRule: return "delete"
        case .liftAll: return "lift_all"
        case .fault(let body): return "fault:" + (body["kind"]?.stringValue ?? "")
        case .clearFaults: return "clear_faults"
        case .after: return "after"
        }
    }

    @Test func everyHistoryWrittenAsAFileParsesAsTheSameSteps() throws {
        let generator = HistoryGenerator(platform: "ios", capabilities: Self.every)
        for run in 0..<40 {
            let history = generator.history(seed: 3, run: run)
            let finding = Finding(
                judge: "differential",
                step: history.moves.count - 1,
                fields: ["screen"],
                message: "a test",
                covers: ["check.app-start"],
                expected: JSONObject([("screen", "none")])
            )
            let text = HistoryFile.text(history, finding: finding, judgedBy: "a test", command: "lerix-mock explore")
            let scenario = try Scenario.parse(Array(text.utf8), file: "run-\(run).yaml")
            #expect(scenario.steps.count == history.moves.count + 1)
            #expect(scenario.covers == ["check.app-start"])
            #expect(scenario.devices.first?.appVersion == history.appVersion)
            #expect(text.contains("--replay 3:\(run)"))
        }
    }

    @Test func flowYAMLQuotesWhatYAMLWouldReadAsAnotherType() {
        #expect(
            FlowYAML.text(.object([("below", "2.0.0"), ("kind", "status"), ("x", "yes")]))
                == #"{below: "2.0.0", kind: status, x: "yes"}"#
        )
        #expect(FlowYAML.scalar("offline.clock-correction") == "offline.clock-correction")
        #expect(FlowYAML.duration(5_400_000, signed: true) == "+1h30m")
        #expect(FlowYAML.duration(-90_000, signed: true) == "-1m30s")
        #expect(FlowYAML.duration(0, signed: false) == "0s")
    }

    @Test func theBuiltInSwiftSDKKeepsEverySpecPropertyOnEveryPlatform() {
        var options = Explorer.Options()
        options.runs = 16
        options.targets = [("ios", "native"), ("android", "flutter"), ("macos", "native"), ("web", "native")]
        options.capabilities = Self.every
        let judge = HistoryJudge(subject: InProcessEnvironment(viaGateway: false), reference: nil)
        let result = Explorer(judge: judge, options: options).run()
        #expect(result.histories == 16)
        #expect(result.found.map(\.finding.message) == [])
        #expect(result.harnessErrors.map(\.reason) == [])
    }

    @Test func theDifferentialJudgeFindsAnSDKThatHidesRequiredUpdatesAndShrinksItToAFileThatFailsOnlyThere()
        throws
    {
        // The Swift SDK whose `state` never shows a required update: a bug only a comparison sees.
        let buggy = distortedEnvironment { state in
            guard var o = state.objectValue, o["required_update"].map({ !$0.isNull }) == true else { return state }
            o["required_update"] = .null
            o["screen"] = "none"
            return .object(o)
        }
        var options = Explorer.Options()
        options.runs = 200
        options.maxFindings = 1
        options.targets = [("ios", "native")]
        options.capabilities = Self.every
        let judge = HistoryJudge(subject: buggy, reference: InProcessEnvironment(viaGateway: false))
        let result = Explorer(judge: judge, options: options).run()
        let found = try #require(result.found.first)
        #expect(found.finding.judge == "differential")
        #expect(found.finding.fields.contains("required_update"))
        #expect(found.shrunk.moves.count <= 9, "\(found.file)")
        #expect(found.unverified == nil, "\(found.unverified ?? "")")
        #expect(found.file.contains("required_update: {rule: r1"), "\(found.file)")
        // Replaying the history finds the same, and the file runs as any scenario does.
        var replay = options
        replay.replay = found.original.run
        let again = Explorer(judge: judge, options: replay).run()
        #expect(again.found.first?.finding.signature == found.finding.signature)
        let scenario = try Scenario.parse(Array(found.file.utf8), file: "found.yaml")
        #expect(Explorer.outcome(of: scenario, in: buggy).status == .failed)
        #expect(Explorer.outcome(of: scenario, in: InProcessEnvironment(viaGateway: false)).status == .passed)
    }

    @Test func aSpecPropertyCatchesWhatNoReferenceIsThereToCompareWith() throws {
        // Maintenance shown from the moment a window is saved, before it starts.
        let early = distortedEnvironment { state in
            guard var o = state.objectValue, o["maintenance"]?.arrayValue?.isEmpty == false,
                o["required_update"]?.isNull ?? true
            else { return state }
            o["screen"] = "maintenance"
            return .object(o)
        }
        var options = Explorer.Options()
        options.runs = 300
        options.maxFindings = 1
        options.targets = [("android", "native")]
        options.capabilities = Self.every
        let result = Explorer(judge: HistoryJudge(subject: early, reference: nil), options: options).run()
        let found = try #require(result.found.first)
        #expect(found.finding.judge == "maintenance-ends")
        #expect(found.finding.covers == ["offline.maintenance.expired"])
        #expect(found.shrunk.moves.count < found.original.moves.count)
    }

    /// In process the runner reads the server's clock and journal typed (no HTTP, no JSON);
    /// what it observes must be what the admin API tells: every history traced both ways gives
    /// the same states, checks (times, statuses, lifetimes, faults, devices) and events.
    @Test func theInProcessServerReadTypedTellsTheRunnerWhatItsAdminAPITells() {
        let typed = InProcessEnvironment(viaGateway: false)
        let overJSON = AdminAPIOnlyEnvironment()
        var checks = 0
        for (run, platform) in ["ios", "android", "web", "macos", "ios", "android", "web", "macos"].enumerated() {
            let history = HistoryGenerator(platform: platform, capabilities: Self.every).history(seed: 40, run: run)
            let a = HistoryJudge.trace(history, in: typed)
            let b = HistoryJudge.trace(history, in: overJSON)
            #expect(a.stopped == nil && b.stopped == nil && a.lostCheck == nil && b.lostCheck == nil)
            #expect(a.observations.count == history.moves.count)
            #expect(a.observations.count == b.observations.count)
            for (x, y) in zip(a.observations, b.observations) {
                #expect(x.time == y.time)
                #expect(x.state == y.state)
                #expect(x.checks == y.checks)
                #expect(x.events == y.events)
                checks += x.checks.count
            }
        }
        #expect(checks > 20, "the histories made checks to compare")
    }

    /// An SDK under test that stops answering (here: refuses `refresh`) is written as a file
    /// whose last move is the one it could not make, then what the reference showed after it:
    /// the file fails on the stopping SDK and passes on the reference (an expectation-less
    /// `expect` did not even parse, so no such file was ever verified).
    @Test func anSDKThatStopsIsWrittenAsAFileThatFailsThereAndPassesOnTheReference() throws {
        var options = Explorer.Options()
        options.runs = 200
        options.maxFindings = 1
        options.targets = [("ios", "native")]
        options.capabilities = Self.every
        let stopping = stoppingEnvironment(refusing: .refresh)
        let judge = HistoryJudge(subject: stopping, reference: InProcessEnvironment(viaGateway: false))
        let result = Explorer(judge: judge, options: options).run()
        let found = try #require(result.found.first)
        #expect(found.finding.signature == "differential:stopped")
        #expect(found.finding.message.contains("the SDK under test could not go on"), "\(found.finding.message)")
        #expect(found.unverified == nil, "\(found.unverified ?? "")")
        #expect(!found.file.contains("NOT VERIFIED"), "\(found.file)")
        #expect(found.file.contains("  - refresh: app\n  - expect: {device: app, screen: "), "\(found.file)")
        let scenario = try Scenario.parse(Array(found.file.utf8), file: "stopped.yaml")
        #expect(Explorer.outcome(of: scenario, in: stopping).status == .failed)
        #expect(Explorer.outcome(of: scenario, in: InProcessEnvironment(viaGateway: false)).status == .passed)
    }

    /// A reference that stops where the SDK under test goes on gives a file no run can verify
    /// (it cannot pass on the reference): its first line and the summary say NOT VERIFIED.
    @Test func aReferenceThatStopsGivesAFileHeadedNotVerified() throws {
        var options = Explorer.Options()
        options.runs = 200
        options.maxFindings = 1
        options.targets = [("ios", "native")]
        options.capabilities = Self.every
        let judge = HistoryJudge(
            subject: InProcessEnvironment(viaGateway: false),
            reference: stoppingEnvironment(refusing: .refresh)
        )
        var result = Explorer(judge: judge, options: options).run()
        let found = try #require(result.found.first)
        #expect(found.finding.signature == "differential:stopped")
        #expect(found.finding.message.contains("the reference could not go on"), "\(found.finding.message)")
        let why = try #require(found.unverified)
        #expect(found.file.hasPrefix("# NOT VERIFIED: \(why)\n"), "\(found.file)")
        result.subjectName = "s"
        result.referenceName = "r"
        #expect(ExploreReport.summary(result).contains("NOT VERIFIED: \(why)"))
        #expect(ExploreReport.json(result)["findings"]?.arrayValue?.first?["verified"] == .bool(false))
    }

    /// docs/behaviour.md `safe.bad-answer`: a 200 of the wrong types is an answer (it renews the
    /// age); a malformed body or a reset is not.
    @Test func aWrongTypesAnswerIsASuccessfulCheckAndAMalformedOneIsNot() {
        #expect(CheckRecord(time: 0, status: 200, lifetime: nil, fault: "wrong_types").succeeded)
        #expect(CheckRecord(time: 0, status: 304, lifetime: 300, fault: nil).succeeded)
        #expect(!CheckRecord(time: 0, status: 200, lifetime: nil, fault: "malformed").succeeded)
        #expect(!CheckRecord(time: 0, status: 0, lifetime: nil, fault: "reset").succeeded)
        #expect(!CheckRecord(time: 0, status: 503, lifetime: nil, fault: "status").succeeded)
    }

    /// docs/behaviour.md `offline.clock-correction`: a clock set while the app is closed is not
    /// seen until the next successful check, so the maintenance properties hold back (history
    /// 1:237 of the Swift SDK against itself, which broke `maintenance-applies` before).
    @Test func aClockSetWhileTheAppIsClosedIsNoMaintenanceFindingUntilTheNextCheck() {
        let history = History(
            seed: 1,
            run: 237,
            platform: "ios",
            flavor: "flutter",
            appVersion: "2.0.0",
            build: nil,
            push: true,
            clockOffsetSeconds: 0,
            moves: [
                .app(.launch),
                .createRule(
                    name: "r1",
                    body: .object([("type", "maintenance"), ("starts_at", "-10m"), ("ends_at", "+3h50m")])
                ),
                .app(.terminate), .network(online: false), .setClock(offsetSeconds: -7_200), .app(.launch),
            ]
        )
        let trace = HistoryJudge.trace(history, in: InProcessEnvironment(viaGateway: false))
        #expect(trace.observations.count == 6)
        #expect(trace.observations.last?.state["screen"]?.stringValue == "none")
        #expect(SpecProperties.check(history, trace) == nil)
        // Set while the app runs, the same clock is corrected: the window shows.
        var running = history
        running.moves = [
            .app(.launch), history.moves[1], .network(online: false), .setClock(offsetSeconds: -7_200),
            .after(milliseconds: 60_000),
        ]
        let seen = HistoryJudge.trace(running, in: InProcessEnvironment(viaGateway: false))
        #expect(seen.observations.last?.state["screen"]?.stringValue == "maintenance")
        #expect(SpecProperties.check(running, seen) == nil)
    }

    /// docs/behaviour.md `offline.clock-correction`: after a clock set while the app was closed,
    /// the next process reads switch ends, an answer's age and the 7-day drop from its saved
    /// clock difference, as it reads windows, so those properties hold back until a successful
    /// check. Both SDKs read it this way; the Swift SDK's campaign of issue 40 broke
    /// `paused-sends-nothing` so (history 1105:445, the first case, as explore shrank it). Judged
    /// as if the clock had never moved, the same trace still breaks each property.
    @Test func aClockSetWhileTheAppIsClosedHoldsBackSwitchAgeAndSevenDayPropertiesUntilACheck() {
        let hour: Int64 = 3_600_000
        let cases: [(history: History, unseen: Int, property: String)] = [
            (
                History(
                    seed: 1105,
                    run: 445,
                    platform: "macos",
                    flavor: "flutter",
                    appVersion: "1.0.0",
                    build: nil,
                    push: false,
                    clockOffsetSeconds: 0,
                    moves: [
                        .app(.launch), .after(milliseconds: 9 * hour),
                        .createRule(
                            name: "r1",
                            body: .object([
                                ("type", "sdk_switch"), ("modules", .array(["analytics"])), ("ends_at", "+2d11h25m37s"),
                                ("sdks", .array([.object([("name", "flutter")])])),
                            ])
                        ),
                        .setClock(offsetSeconds: -86_400), .after(milliseconds: 11 * hour),
                        .updateRule(name: "r1", fields: .object([("modules", .array(["all"]))])),
                        .after(milliseconds: 17 * hour), .app(.launch), .app(.terminate),
                        .track(module: "surveys", count: 4), .setClock(offsetSeconds: 600), .app(.launch),
                    ]
                ), 10, "paused-sends-nothing"
            ),
            (
                History(
                    seed: 0,
                    run: 0,
                    platform: "ios",
                    flavor: "native",
                    appVersion: "2.0.0",
                    build: nil,
                    push: false,
                    clockOffsetSeconds: 0,
                    moves: [
                        .app(.launch),
                        .createRule(name: "r1", body: .object([("type", "optional_update"), ("below", "2.5.0")])),
                        .app(.refresh), .app(.terminate), .setClock(offsetSeconds: -86_400), .network(online: false),
                        .after(milliseconds: 169 * hour), .app(.launch),
                    ]
                ), 4, "optional-dropped-after-7-days"
            ),
            (
                History(
                    seed: 0,
                    run: 1,
                    platform: "web",
                    flavor: "native",
                    appVersion: "2.0.0",
                    build: nil,
                    push: false,
                    clockOffsetSeconds: 0,
                    moves: [
                        .app(.launch), .app(.terminate), .setClock(offsetSeconds: -120),
                        .fault(.object([("kind", "status"), ("status", .number(503))])), .app(.launch), .clearFaults,
                        .app(.background), .after(milliseconds: 360_000), .app(.foreground),
                    ]
                ), 2, "foreground-checks-stale"
            ),
        ]
        for (history, unseen, property) in cases {
            let trace = HistoryJudge.trace(history, in: InProcessEnvironment(viaGateway: false))
            #expect(trace.observations.count == history.moves.count, "\(property)")
            #expect(SpecProperties.check(history, trace)?.message == nil, "\(property)")
            var neverMoved = history
            neverMoved.moves[unseen] = .clearFaults
            #expect(SpecProperties.check(neverMoved, trace)?.judge == property)
        }
    }

    @Test func shrinkingDropsEditsOfRulesThatAreGone() {
        let moves: [HistoryMove] = [
            .app(.launch), .updateRule(name: "r1", fields: .object([("below", "2.5.0")])),
            .createRule(name: "r2", body: .object([("type", "required_update"), ("below", "2.5.0")])), .liftAll,
            .deleteRule(name: "r2"),
        ]
        #expect(Shrinker.consistent(moves) == [moves[0], moves[2], moves[3]])
    }

    @Test func reportsNameEachFindingInJUnitAndJSON() throws {
        let history = HistoryGenerator(platform: "web", capabilities: ["platform:web"]).history(seed: 2, run: 5)
        let finding = Finding(
            judge: "differential",
            step: 3,
            fields: ["checks"],
            message: "after move 4: checks: reference 2, seen 1",
            covers: ["check.refresh"],
            expected: JSONObject([("checks", 2)])
        )
        var result = Explorer.Result()
        result.histories = 9
        result.found = [
            Explorer.Found(
                finding: finding,
                original: history,
                shrunk: history,
                file: "name: x\n",
                shrinkRuns: 4,
                occurrences: 2,
                unverified: nil,
                wallSeconds: 0.5
            )
        ]
        let json = ExploreReport.json(result)
        #expect(json["findings"]?.arrayValue?.first?["file"]?.stringValue == "explore-2-5-differential-checks.yaml")
        #expect(json["histories"]?.intValue == 9)
        let xml = ExploreReport.junit(result)
        #expect(xml.contains(#"failures="1""#))
        #expect(xml.contains("explore-2-5-differential-checks.yaml"))
        #expect(ExploreReport.summary(result).contains("FOUND  differential:checks"))
    }

    /// Every mutant of Tests/Explore/web-mutants.json still applies to SDKs/web: its snippet
    /// occurs exactly once (a restructured web SDK must bring its mutants along).
    @Test func everyWebSDKMutantSnippetStillApplies() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("Tests/Explore/web-mutants.json"))
        let mutants = try #require(try JSON.parse(Array(data))["mutants"]?.arrayValue)
        #expect(mutants.count >= 15)
        var rows: Set<String> = []
        for mutant in mutants {
            let name = mutant["name"]?.stringValue ?? "?"
            let file = try #require(mutant["file"]?.stringValue)
            let original = try #require(mutant["original"]?.stringValue)
            let replacement = try #require(mutant["replacement"]?.stringValue)
            let text = try String(contentsOf: root.appendingPathComponent("SDKs/web/" + file), encoding: .utf8)
            #expect(
                text.components(separatedBy: original).count - 1 == 1,
                "mutant \(name): its snippet no longer occurs exactly once in SDKs/web/\(file)"
            )
            #expect(original != replacement)
            let row = try #require(mutant["row"]?.stringValue)
            #expect(SpecCatalogue.builtIn.rows.contains { $0.id == row }, "mutant \(name): unknown row \(row)")
            rows.insert(row)
        }
        #expect(rows.count == mutants.count, "each mutant is about another spec row")
    }
}

/// The in-process Swift SDK with each world changed by `alter` (its adapter wrapped): a wrong
/// SDK, one that stops answering, one whose world is watched.
final class AlteredEnvironment: ScenarioEnvironment {
    let inner = InProcessEnvironment(viaGateway: false)
    let alter: (inout ScenarioWorld) -> Void

    init(_ alter: @escaping (inout ScenarioWorld) -> Void) { self.alter = alter }

    func hello() throws -> JSON { try inner.hello() }

    func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
        var world = try inner.makeWorld(for: scenario)
        alter(&world)
        return world
    }
}

/// The in-process Swift SDK with its `state` answers passed through `distort`: a wrong SDK.
func distortedEnvironment(_ distort: @escaping @Sendable (JSON) -> JSON) -> AlteredEnvironment {
    AlteredEnvironment { $0.adapter = DistortedAdapter(inner: $0.adapter, distort: distort) }
}

final class DistortedAdapter: AdapterConnection {
    let inner: any AdapterConnection
    let distort: (JSON) -> JSON
    init(inner: any AdapterConnection, distort: @escaping (JSON) -> JSON) {
        self.inner = inner
        self.distort = distort
    }
    func send(_ command: JSON) throws(AdapterFailure) -> JSON {
        let answer = try inner.send(command)
        return command["cmd"]?.stringValue == "state" ? distort(answer) : answer
    }
    func command(_ request: AdapterRequest) throws(AdapterFailure) -> JSON {
        let answer = try inner.command(request)
        return request.command == .state ? distort(answer) : answer
    }
    func close() { inner.close() }
}

/// The in-process Swift SDK refusing one app event: an SDK that stops answering.
func stoppingEnvironment(refusing refused: AdapterCommand) -> AlteredEnvironment {
    AlteredEnvironment { $0.adapter = StoppingAdapter(inner: $0.adapter, refused: refused) }
}

final class StoppingAdapter: AdapterConnection {
    let inner: any AdapterConnection
    let refused: AdapterCommand
    init(inner: any AdapterConnection, refused: AdapterCommand) {
        self.inner = inner
        self.refused = refused
    }
    func send(_ command: JSON) throws(AdapterFailure) -> JSON {
        if command["cmd"]?.stringValue == refused.rawValue { throw AdapterFailure("\(refused.rawValue): no answer") }
        return try inner.send(command)
    }
    func command(_ request: AdapterRequest) throws(AdapterFailure) -> JSON {
        if request.command == refused { throw AdapterFailure("\(refused.rawValue): no answer") }
        return try inner.command(request)
    }
    func close() { inner.close() }
}

/// The in-process world reached through its admin API only: the runner reads the clock and the
/// journal as JSON, as it does from a server in another process.
final class AdminAPIOnlyEnvironment: ScenarioEnvironment {
    let inner = InProcessEnvironment(viaGateway: false)

    func hello() throws -> JSON { try inner.hello() }

    func makeWorld(for scenario: Scenario) throws -> ScenarioWorld {
        var world = try inner.makeWorld(for: scenario)
        world.server = AdminAPIOnlyConnection(inner: world.server)
        return world
    }
}

final class AdminAPIOnlyConnection: ServerConnection {
    let inner: any ServerConnection
    init(inner: any ServerConnection) { self.inner = inner }
    var baseURL: String { inner.baseURL }
    func request(_ method: String, _ path: String, body: JSON?) throws(ServerFailure) -> ServerReply {
        try inner.request(method, path, body: body)
    }
}
