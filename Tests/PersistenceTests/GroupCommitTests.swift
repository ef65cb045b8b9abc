import Dispatch
import Foundation
import JSON
import MockServer
import Synchronization
import Testing

@testable import Persistence

/// Concurrent writers share commits, each returns only once its batch is durable, and nothing
/// is lost or reordered per writer.
@Suite struct GroupCommitTests {
    /// Waits (bounded; a failure guard, not a timing assumption) until `condition` holds.
    private func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<10_000 {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }

    /// Runs `body` on a thread of its own (Dispatch's pool would cap how many may block at once).
    private func spawn(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            body()
            group.leave()
        }.start()
    }

    @Test func writesThatArriveWhileACommitRunsCommitAsOneBatch() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("batch.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        let release = DispatchSemaphore(value: 0)
        file.holdWriterForTesting(until: release)
        let returned = Atomic<Int>(0)
        let group = DispatchGroup()
        for i in 0..<20 {
            spawn(group) {
                if (try? file.write([.tokenUpserted(project: "demo", token: Fixtures.token("t\(i)"))])) != nil {
                    returned.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(eventually { file.queuedForTesting == 20 })
        // Nobody has been acknowledged while the file was held.
        #expect(returned.load(ordering: .relaxed) == 0)
        release.signal()
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(returned.load(ordering: .relaxed) == 20)
        #expect(file.largestBatch == 20)
        file.close()
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        let tokens = Set(reopened.initialState.projects.first?.pushTokens.map(\.id) ?? [])
        #expect(tokens == Set((0..<20).map { "t\($0)" }))
    }

    @Test func aRefusedWriteInABatchDoesNotFailTheOthers() throws {
        let dir = try TemporaryDirectory()
        let file = try StateFile.open(path: dir.file("mixed.db"), seed: Fixtures.seedState)
        defer { file.close() }
        file.limitGrowthForTesting()
        let release = DispatchSemaphore(value: 0)
        file.holdWriterForTesting(until: release)
        let outcomes = Mutex<[String: Bool]>([:])
        let group = DispatchGroup()
        let writes: [(String, StoredEvent)] = [
            ("small", .tokenUpserted(project: "demo", token: Fixtures.token("small"))),
            ("huge", .tokenUpserted(project: "demo", token: Fixtures.token(String(repeating: "h", count: 64 * 1024)))),
            ("ingest", .ingestCounted(project: "demo", module: "errors", total: 3)),
        ]
        for (name, event) in writes {
            spawn(group) {
                let ok = (try? file.write([event])) != nil
                outcomes.withLock { $0[name] = ok }
            }
        }
        #expect(eventually { file.queuedForTesting == 3 })
        release.signal()
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(outcomes.withLock { $0 } == ["small": true, "huge": false, "ingest": true])
        #expect(file.largestBatch == 3)
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

/// The two-phase API: order fixed at enqueue, durability shared at wait.
@Suite struct TwoPhaseWriteTests {
    @Test func enqueuedWritesCommitInEnqueueOrderAndShareOneCommit() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("two-phase.db")
        let store = try SQLiteStateStore.open(path: path, seed: .defaultSeed, durability: .powerLoss)
        let pending = (1...30).map { n in
            store.enqueue([
                .tokenUpserted(project: "demo", token: StateSnapshot.Token(token: "t\(n)", platform: .ios)),
                .ingestCounted(project: "demo", module: "errors", total: n),
            ])
        }
        let failures = Atomic<Int>(0)
        let group = DispatchGroup()
        for write in pending.reversed() {
            group.enter()
            Thread {
                if (try? write.wait()) == nil { failures.add(1, ordering: .relaxed) }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(store.largestBatch == 30)
        store.close()
        let reopened = try SQLiteStateStore.open(path: path, seed: .defaultSeed)
        defer { reopened.close() }
        let project = try #require(try reopened.load()?.projects.first)
        #expect(project.pushTokens.map(\.token) == (1...30).map { "t\($0)" })
        #expect(project.ingest == ["errors": 30])
    }
}
