import Dispatch
import JSON
import Synchronization
import Testing

@testable import Persistence

/// Concurrent writers share commits, each is acknowledged only once its batch is durable, and
/// nothing is lost or reordered per writer.
@Suite struct GroupCommitTests {
    @Test func writesQueuedWhileTheWriterIsBusyCommitAsOneBatch() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("batch.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        let release = DispatchSemaphore(value: 0)
        file.holdWriterForTesting(until: release)
        let acknowledged = Atomic<Int>(0)
        let tickets = (0..<20).map { i in
            file.submit([.tokenUpserted(project: "demo", token: Fixtures.token("t\(i)"))]) { error in
                if error == nil { acknowledged.add(1, ordering: .relaxed) }
            }
        }
        // Nothing is acknowledged while the commit has not happened.
        #expect(acknowledged.load(ordering: .relaxed) == 0)
        release.signal()
        for ticket in tickets { try ticket.wait() }
        #expect(acknowledged.load(ordering: .relaxed) == 20)
        #expect(file.largestBatch == 20)
        file.close()
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(reopened.initialState.projects.first?.pushTokens == (0..<20).map { Fixtures.token("t\($0)") })
    }

    @Test func aRefusedWriteInABatchDoesNotFailTheOthers() throws {
        let dir = try TemporaryDirectory()
        let file = try StateFile.open(path: dir.file("mixed.db"), seed: Fixtures.seedState)
        defer { file.close() }
        file.limitGrowthForTesting()
        let release = DispatchSemaphore(value: 0)
        file.holdWriterForTesting(until: release)
        let small = file.submit([.tokenUpserted(project: "demo", token: Fixtures.token("small"))])
        let huge = file.submit([.tokenUpserted(project: "demo", token: Fixtures.token(String(repeating: "h", count: 64 * 1024)))])
        let other = file.submit([.ingestCounted(project: "demo", module: "errors", total: 3)])
        release.signal()
        try small.wait()
        #expect(throws: StateStoreError.self) { try huge.wait() }
        try other.wait()
        let project = try #require(try file.loadSnapshot().projects.first)
        #expect(project.pushTokens == [Fixtures.token("small")])
        #expect(project.ingest == [StoredIngestCount(module: "errors", count: 3)])
    }

    @Test func concurrentWritersLoseNothingAndKeepTheirOwnOrder() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("concurrent.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState, durability: .powerLoss)
        let writers = 8, perWriter = 40
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: writers) { w in
            for i in 0..<perWriter {
                do {
                    try file.write([
                        .tokenUpserted(project: "demo", token: Fixtures.token("w\(w)-\(i)")),
                        .ingestCounted(project: "demo", module: "writer-\(w)", total: i + 1),
                    ])
                } catch {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        file.close()
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        let project = try #require(reopened.initialState.projects.first)
        #expect(project.pushTokens.count == writers * perWriter)
        for w in 0..<writers {
            let mine = project.pushTokens.map(\.id).filter { $0.hasPrefix("w\(w)-") }
            #expect(mine == (0..<perWriter).map { "w\(w)-\($0)" })
            #expect(project.ingest.first { $0.module == "writer-\(w)" }?.count == perWriter)
        }
    }
}
