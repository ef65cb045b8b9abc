import JSON
import TestSupport
import Testing

/// A request's cost grows linearly with its body, so the largest body the server accepts
/// (1 MiB) holds an event loop for milliseconds, not minutes (issue 12, point 3: two 110k-key
/// ingest bodies stalled both loops for 80 s).
@Suite struct LargeBodyTests {
    static func ingestBody(keys: Int) -> String {
        var text = "[{"
        text.reserveCapacity(keys * 10)
        for i in 0..<keys {
            if i > 0 { text += "," }
            text += "\"\(String(i, radix: 36))\":0"
        }
        return text + "}]"
    }

    @Test func anIngestBodyWithAHundredTenThousandKeysCostsLinearTime() throws {
        let harness = try Harness()
        let small = Self.ingestBody(keys: 6_875)
        let large = Self.ingestBody(keys: 110_000)
        #expect(large.utf8.count < 1 << 20, "fits the 1 MiB body limit")
        var statuses: [Int] = []
        let growth = ScalingProbe.growth(
            small: { statuses.append(harness.post("/v1/projects/demo/ingest/errors", small).status) },
            large: { statuses.append(harness.post("/v1/projects/demo/ingest/errors", large).status) }
        )
        #expect(statuses == Array(repeating: 202, count: 6))
        #expect(harness.get("/admin/projects/demo/ingest")["ingest"]?["errors"] == 6)
        #expect(growth < 64, "16× the keys cost \(growth)× the CPU time")
    }
}
