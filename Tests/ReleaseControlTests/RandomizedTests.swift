import Clock
import JSON
import TestSupport
import Testing

@testable import ReleaseControl

/// Properties checked over many seeded random inputs; each seed replays exactly.
@Suite struct RandomizedTests {
    static func version(_ r: inout SeededRandom) -> String {
        var parts = (0..<r.int(1...4)).map { _ in String(r.int(0...12)) }
        if r.chance(20) { parts.append("0") }
        var text = parts.joined(separator: ".")
        if r.chance(35) {
            text +=
                "-"
                + (0..<r.int(1...3)).map { _ in r.pick(["alpha", "beta", "rc", "1", "2", "11", "x-y"]) }.joined(
                    separator: "."
                )
        }
        if r.chance(10) { text += "+build." + String(r.int(0...9)) }
        return text
    }

    @Test func versionOrderIsATotalOrderConsistentWithEquality() throws {
        var r = SeededRandom(seed: 7)
        let versions = try (0..<120).map { _ in try #require(Version(Self.version(&r))) }
        for a in versions {
            #expect(!(a < a))
            for b in versions {
                let relations = [a < b, b < a, a == b].filter { $0 }.count
                #expect(relations == 1, "\(a) vs \(b)")
                if a == b { #expect(a.hashValue == b.hashValue) }
            }
        }
        let sorted = versions.sorted()
        for (x, y) in zip(sorted, sorted.dropFirst()) { #expect(!(y < x)) }
        // Transitivity over a sample of triples.
        for _ in 0..<2000 {
            let a = r.pick(versions)
            let b = r.pick(versions)
            let c = r.pick(versions)
            if a < b && b < c { #expect(a < c) }
        }
    }

    static func ruleBody(_ r: inout SeededRandom) -> String {
        let platforms = r.chance(50) ? "" : #""platforms":["\#(r.pick(["ios", "android", "web", "macos"]))"],"#
        let t = { (s: Int) in Fixture.time(Int64(s)) }
        switch r.int(0...4) {
        case 0: return #"{"type":"required_update",\#(platforms)"below":"\#(version(&r))"}"#
        case 1: return #"{"type":"optional_update",\#(platforms)"below":"\#(version(&r))"}"#
        case 2:
            return
                #"{"type":"recommended_update",\#(platforms)"below":"\#(version(&r))","becomes_required_on":"\#(t(r.int(-3000...9000)))"}"#
        case 3:
            let start = r.int(-9000...9000)
            return
                #"{"type":"maintenance",\#(platforms)"starts_at":"\#(t(start))","ends_at":"\#(t(start + r.int(1...7200)))"}"#
        default:
            let sdks =
                r.chance(50) ? "" : #""sdks":[{"name":"swift"\#(r.chance(50) ? #","below":"\#(version(&r))""# : "")}],"#
            return
                #"{"type":"sdk_switch",\#(sdks)"modules":["\#(r.pick(["errors", "all"]))"],"ends_at":"\#(t(r.int(-3000...9000)))"}"#
        }
    }

    @Test(arguments: 1...25)
    func cachedAnswerEqualsFreshEvaluationUntilValidUntil(seed: Int) throws {
        var r = SeededRandom(seed: UInt64(seed))
        var project = try Fixture.project((0..<r.int(0...8)).map { _ in Self.ruleBody(&r) })
        if r.chance(50) {
            _ = try project.createRule(Fixture.json(Self.ruleBody(&r)), now: Fixture.at(Int64(r.int(-2000...0))))
        }
        for _ in 0..<6 {
            let device = Fixture.device(
                r.pick(Platform.allCases),
                r.chance(85) ? Self.version(&r) : nil,
                sdk: r.chance(70) ? "swift" : nil,
                sdkVersion: r.chance(70) ? Self.version(&r) : nil
            )
            var now = Fixture.at(Int64(r.int(-4000...0)))
            for _ in 0..<40 {
                let answer = project.evaluate(device, now: now)
                guard let until = answer.validUntil else { break }
                #expect(until > now)
                // Probe inside the interval and just before its end.
                for probe in [
                    now.adding(milliseconds: Int64(r.int(0...Int(until.milliseconds(since: now) - 1)))),
                    until.adding(milliseconds: -1),
                ] {
                    let fresh = project.evaluate(device, now: probe)
                    #expect(
                        fresh.decidesLike(answer),
                        "seed \(seed): answer at \(now) differs at \(probe) before validUntil \(until)"
                    )
                }
                now = until
            }
        }
    }

    static func randomJSON(_ r: inout SeededRandom, depth: Int = 0) -> JSON {
        let scalars: [JSON] = [.null, true, 7, -1.5, "", "ios", "2.4.0", "x", .string(Fixture.time(0)), "analytics"]
        if depth > 2 || r.chance(40) { return r.pick(scalars) }
        if r.chance(50) { return .array((0..<r.int(0...3)).map { _ in randomJSON(&r, depth: depth + 1) }) }
        let keys = [
            "type", "platforms", "below", "store_url", "message", "becomes_required_on", "starts_at", "ends_at",
            "sdks", "name", "modules",
        ]
        var pairs: [(String, JSON)] = []
        for _ in 0..<r.int(0...6) {
            let key = r.pick(keys)
            let value: JSON =
                key == "type" && r.chance(70)
                ? .string(r.pick(RuleType.allCases).rawValue) : randomJSON(&r, depth: depth + 1)
            pairs.append((key, value))
        }
        return .object(pairs)
    }

    @Test func arbitraryBodiesNeverCrashAndEitherRoundTripOrFailWithPointedProblems() {
        var r = SeededRandom(seed: 42)
        for _ in 0..<3000 {
            let json = Self.randomJSON(&r)
            do {
                let body = try RuleBody.decode(json)
                #expect((try? RuleBody.decode(body.json)) == body)
            } catch {
                #expect(!error.problems.isEmpty)
                #expect(error.status == 400 || error.status == 422)
                for p in error.problems {
                    #expect(p.pointer.isEmpty || p.pointer.hasPrefix("/"))
                    #expect(!p.message.isEmpty)
                }
            }
        }
    }
}
