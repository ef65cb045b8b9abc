import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// Spec row × SDK: what a cell says and where it links.
@Suite struct ConformanceMatrixTests {
    static func outcome(
        _ name: String,
        _ status: ScenarioOutcome.Status,
        covers: [String],
        skippedFor: [String] = []
    )
        -> ScenarioOutcome
    {
        var o = ScenarioOutcome(
            scenario: name,
            file: "\(name).yaml",
            status: status,
            failure: "",
            failureSummary: "",
            virtualMilliseconds: 0,
            wallSeconds: 0,
            log: [],
            covers: covers,
            tags: []
        )
        o.skippedFor = skippedFor
        return o
    }

    static func run(_ name: String, _ outcomes: [ScenarioOutcome]) -> RunRecord {
        var result = SuiteResult(outcomes: outcomes, adapterName: "\(name) 1.0")
        result.adapter = AdapterIdentity(name: name, version: "1.0")
        return RunRecord(mode: .adapter, seed: 1, result: result)
    }

    static let catalogue = SpecCatalogue(
        spec: "spec.md",
        rows: ["a", "b", "c", "d"].map { SpecCatalogue.Row(id: "row.\($0)", section: "S", text: "Row \($0)") },
        file: nil
    )

    @Test func aCellFailsOnAnyFailurePassesOnAPassSkipsWithTheSpecsReasonsAndSaysWhenNothingCoversIt() {
        let swift = Self.run(
            "swift",
            [
                Self.outcome("one", .passed, covers: ["row.a", "row.b"]),
                Self.outcome("two", .failed, covers: ["row.b"]),
                Self.outcome("three", .passed, covers: ["row.c"]),
            ]
        )
        let web = Self.run(
            "web",
            [
                Self.outcome("one", .passed, covers: ["row.a", "row.b"]),
                Self.outcome(
                    "two",
                    .skipped("…"),
                    covers: ["row.b"],
                    skippedFor: ["push (web pages receive no silent push)"]
                ),
                Self.outcome(
                    "three",
                    .skipped("…"),
                    covers: ["row.c"],
                    skippedFor: ["push (web pages receive no silent push)"]
                ),
            ]
        )
        let matrix = ConformanceMatrix(ResultDocument(tool: "t", catalogue: Self.catalogue, runs: [swift, web]))
        #expect(matrix.headings == ["swift 1.0", "web 1.0"])
        let words = matrix.cells.map { $0.map(\.verdict.word) }
        #expect(words == [["pass", "pass"], ["fail", "pass"], ["pass", "skip"], ["no scenario", "no scenario"]])
        #expect(matrix.cells[1][0].outcome == 1, "a failing cell links to the failing scenario")
        #expect(matrix.cells[2][1].verdict == .skip(["push (web pages receive no silent push)"]))
        #expect(matrix.cells[2][1].outcome == 2 && matrix.cells[3][0].outcome == nil)
        let html = HTMLReport.html(ResultDocument(tool: "t", catalogue: Self.catalogue, runs: [swift, web]))
        #expect(html.contains("<a href=\"#r0-s1\""), "the failing cell links to its section")
        #expect(html.contains("id=\"r0-s1\"") && html.contains("id=\"r1-s2\""))
        #expect(html.contains("web pages receive no silent push"))
    }

    @Test func mergingTwoSDKsRunsGivesTwoColumnsAndShardsOfOneGiveOne() throws {
        let swift = Self.run("swift", [Self.outcome("one", .passed, covers: ["row.a"])])
        var webOne = Self.run("web", [Self.outcome("one", .passed, covers: ["row.a"])])
        webOne.shards = [Shard(index: 1, total: 2)]
        webOne.result.planned = 2
        var webTwo = Self.run("web", [Self.outcome("two", .passed, covers: ["row.b"])])
        webTwo.shards = [Shard(index: 2, total: 2)]
        webTwo.result.planned = 2
        webTwo.result.outcomes[0].position = 1
        let merged = try ResultMerge.merge(
            [
                ("swift.json", ResultDocument(tool: "t", catalogue: Self.catalogue, runs: [swift])),
                ("web-1.json", ResultDocument(tool: "t", catalogue: Self.catalogue, runs: [webOne])),
                ("web-2.json", ResultDocument(tool: "t", catalogue: Self.catalogue, runs: [webTwo])),
            ],
            tool: "t"
        )
        #expect(merged.incomplete == [])
        #expect(merged.document.runs.map(\.adapter.name) == ["swift", "web"])
        #expect(merged.document.runs[1].result.outcomes.map(\.scenario) == ["one", "two"])
        let matrix = ConformanceMatrix(merged.document)
        #expect(matrix.cells[1].map(\.verdict.word) == ["no scenario", "pass"])
    }
}
