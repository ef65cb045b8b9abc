import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// `--shard I/N` and the CI variables: a deterministic split with every scenario in exactly one shard.
@Suite struct ShardTests {
    @Test func shardsCountFromOneOnTheCommandLineAndInGitLabAndFromZeroInBazel() throws {
        #expect(try Shard.parse("2/3") == Shard(index: 2, total: 3))
        #expect(try Shard.fromEnvironment(["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"]) == Shard(index: 2, total: 3))
        #expect(
            try Shard.fromEnvironment(["TEST_SHARD_INDEX": "1", "TEST_TOTAL_SHARDS": "3"]) == Shard(index: 2, total: 3)
        )
        // Bazel's variables win over GitLab's when both are set; neither: unsharded.
        #expect(
            try Shard.fromEnvironment([
                "TEST_SHARD_INDEX": "0", "TEST_TOTAL_SHARDS": "2", "CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "2",
            ]) == Shard(index: 1, total: 2)
        )
        #expect(try Shard.fromEnvironment(["CI_NODE_TOTAL": "1"]) == nil)
        #expect(try Shard.fromEnvironment([:]) == nil)
    }

    @Test func aShardOutOfRangeOrMalformedIsRefusedSayingTheBase() {
        func problem(_ body: () throws -> Shard?) -> String {
            do {
                _ = try body()
                return ""
            } catch { return "\(error)" }
        }
        #expect(problem { try Shard.parse("0/3") }.contains("counts from 1, so it must be 1 to 3, not 0"))
        #expect(problem { try Shard.parse("4/3") }.contains("must be 1 to 3, not 4"))
        #expect(problem { try Shard.parse("2") }.contains("--shard takes I/N"))
        #expect(problem { try Shard.parse("1/0") }.contains("number of shards must be 1 to"))
        #expect(
            problem { try Shard.fromEnvironment(["TEST_SHARD_INDEX": "3", "TEST_TOTAL_SHARDS": "3"]) }
                .contains("counts from 0, so it must be 0 to 2, not 3")
        )
        #expect(problem { try Shard.fromEnvironment(["TEST_TOTAL_SHARDS": "3"]) }.contains("needs TEST_SHARD_INDEX"))
        #expect(problem { try Shard.fromEnvironment(["CI_NODE_TOTAL": "x"]) }.contains("whole number"))
    }

    @Test func everyKeyLandsInExactlyOneShardAndCountsDifferByAtMostOne() {
        let keys = (1...34).map { "scenario \($0)" }
        for total in 1...7 {
            let assigned = ShardPlan.assign(keys, shards: total, timings: [:])
            #expect(assigned.count == keys.count && assigned.allSatisfy { (0..<total).contains($0) })
            let sizes = (0..<total).map { s in assigned.filter { $0 == s }.count }
            #expect(sizes.max()! - sizes.min()! <= 1, "\(sizes)")
            #expect(ShardPlan.assign(keys, shards: total, timings: [:]) == assigned, "not deterministic")
        }
    }

    @Test func timingsBalanceShardsByDurationAndUnknownOnesCountAsTheMedian() {
        // One long scenario and many short ones: by count, a shard would get the long one and
        // as many short ones as the other; by duration, the long one stands alone.
        let keys = ["long"] + (1...6).map { "short \($0)" }
        var timings = ["long": 6.0]
        for i in 1...6 { timings["short \(i)"] = 1 }
        let assigned = ShardPlan.assign(keys, shards: 2, timings: timings)
        let load = (0..<2).map { s in keys.indices.filter { assigned[$0] == s }.reduce(0.0) { $0 + timings[keys[$1]]! }
        }
        #expect(load == [6, 6], "\(assigned)")
        #expect(ShardPlan.assign(keys, shards: 2, timings: timings) == assigned)
        // A new scenario missing from the timings still lands in a shard.
        let more = keys + ["new"]
        let withNew = ShardPlan.assign(more, shards: 2, timings: timings)
        #expect(withNew.count == more.count && Set(withNew) == [0, 1])
    }

    @Test func aSuitePlanKeepsPositionsAndSplitsFilesInErrorToo() throws {
        let text = { (name: String) in "name: \(name)\ndevices: {}\nsteps:\n  - expect_pushes: {count: 0}\n" }
        let suite = ScenarioSuite(
            scenarios: try ["a", "b", "c", "d"].map { try Scenario.parse(Array(text($0).utf8), file: "\($0).yaml") },
            brokenFiles: [
                ScenarioFileErrors([
                    ScenarioError("bad", at: SourceLocation(file: "0.yaml", mark: .init(line: 1, column: 1)))
                ])
            ]
        )
        var seen: [Int] = []
        for index in 1...3 {
            var options = SuiteOptions()
            options.shard = Shard(index: index, total: 3)
            let plan = SuitePlan(suite: suite, options: options)
            #expect(plan.planned == 5)
            seen += plan.brokenFiles.map(\.position) + plan.scenarios.map(\.position)
        }
        #expect(seen.sorted() == [0, 1, 2, 3, 4])
        var rerun = SuiteOptions()
        rerun.only = ["c", "0.yaml"]
        let plan = SuitePlan(suite: suite, options: rerun)
        #expect(plan.scenarios.map(\.position) == [3] && plan.brokenFiles.map(\.position) == [0])
    }
}
