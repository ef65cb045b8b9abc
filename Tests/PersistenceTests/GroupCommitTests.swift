import Dispatch
import Foundation
import HTTP
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
        let writers = 8
        let perWriter = 40
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

/// The pipelined API MockServer writes through: order fixed at enqueue, commits shared on the
/// store's commit queue, and a refusal taken back before later writes count again.
@Suite struct PipelinedWriteTests {
    static func token(_ n: Int) -> StateEvent {
        .tokenUpserted(project: "demo", token: StateSnapshot.Token(token: "t\(n)", platform: .ios))
    }

    /// Enqueues `writes` and waits (bounded) for every report; the outcomes in report order.
    static func enqueue(_ store: SQLiteStateStore, _ writes: [[StateEvent]]) -> [(index: Int, error: StateStoreError?)]
    {
        let reports = Mutex<[(index: Int, error: StateStoreError?)]>([])
        let group = DispatchGroup()
        for (index, events) in writes.enumerated() {
            group.enter()
            store.enqueue(events) { error in
                reports.withLock { $0.append((index, error as? StateStoreError)) }
                group.leave()
            }
            store.commitEnqueued()  // as MockServer does, once its writer lock is released
        }
        _ = group.wait(timeout: .now() + 30)
        return reports.withLock { $0 }
    }

    @Test func enqueuedWritesCommitInEnqueueOrderAndShareCommits() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("pipelined.db")
        let store = try SQLiteStateStore.open(path: path, seed: .defaultSeed, durability: .powerLoss)
        let release = DispatchSemaphore(value: 0)
        store.holdWriterForTesting(until: release)
        let writes = (1...30).map { n in [Self.token(n), .ingestCounted(project: "demo", module: "errors", total: n)] }
        let done = Mutex<[(index: Int, error: StateStoreError?)]>([])
        DispatchQueue.global().async {
            let reports = Self.enqueue(store, writes)
            done.withLock { $0 = reports }
        }
        // Held: queued, nothing reported.
        #expect(PersistenceWait.until { store.queuedForTesting == 30 })
        #expect(done.withLock { $0.isEmpty })
        release.signal()
        #expect(PersistenceWait.until { done.withLock { $0.count } == 30 })
        let reports = done.withLock { $0 }
        #expect(reports.map(\.index) == Array(0..<30), "reported in enqueue order")
        #expect(reports.allSatisfy { $0.error == nil })
        #expect(store.largestBatch == 30)
        store.close()
        let reopened = try SQLiteStateStore.open(path: path, seed: .defaultSeed)
        defer { reopened.close() }
        let project = try #require(try reopened.load()?.projects.first)
        #expect(project.pushTokens.map(\.token) == (1...30).map { "t\($0)" })
        #expect(project.ingest == ["errors": 30])
    }

    @Test func aRefusedWriteRefusesTheWritesPlannedOnItUntilRecovered() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("refused.db")
        let store = try SQLiteStateStore.open(path: path, seed: .defaultSeed)
        defer { store.close() }
        #expect(Self.enqueue(store, [[Self.token(1)]]).map(\.error) == [nil])
        #expect(try store.recoverAfterRefusal() == nil, "nothing refused, nothing to recover")
        store.limitGrowthForTesting()
        let huge = StateEvent.tokenUpserted(
            project: "demo",
            token: StateSnapshot.Token(token: String(repeating: "h", count: 64 * 1024), platform: .ios)
        )
        let reports = Self.enqueue(store, [[huge], [Self.token(2)], [Self.token(3)]])
        #expect(reports.map(\.index) == [0, 1, 2])
        guard reports.count == 3, case .writeRefused? = reports[0].error else {
            Issue.record("the huge write was not refused: \(reports)")
            return
        }
        #expect(reports[1].error == .refusedEarlier(path: path) && reports[2].error == .refusedEarlier(path: path))
        // Recovery hands back the file's state once, then small writes go through again.
        let stored = try #require(try store.recoverAfterRefusal())
        #expect(stored.projects.first?.pushTokens.map(\.token) == ["t1"])
        #expect(try store.recoverAfterRefusal() == nil)
        #expect(Self.enqueue(store, [[.tokenDeleted(project: "demo", token: "t1")]]).map(\.error) == [nil])
        #expect(try store.loadSnapshot().projects.first?.pushTokens == [])
    }
}

/// Bounded polling for conditions another thread makes true (a failure guard, not a timing assumption).
enum PersistenceWait {
    static func until(_ condition: () -> Bool) -> Bool {
        for _ in 0..<10_000 {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }
}

/// MockServer over the file: writes in flight share commits, and each is answered only once
/// its commit is durable.
@Suite struct ServerGroupCommitTests {
    @Test func registrationsInFlightShareCommitsAndAreAnsweredOnlyOnceDurable() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("server.db")
        let first = try ServerOnFile(path: path)
        let release = DispatchSemaphore(value: 0)
        first.store.holdWriterForTesting(until: release)
        let answered = Atomic<Int>(0)
        let group = DispatchGroup()
        for i in 0..<20 {
            group.enter()
            let request = HTTPRequest(
                method: "PUT",
                target: "/v1/projects/demo/push-tokens/t\(i)",
                body: Array(#"{"platform": "ios"}"#.utf8)
            )
            first.server.respond(to: request) { reply in
                if case .response(let response) = reply, response.status == 204 { answered.add(1, ordering: .relaxed) }
                group.leave()
            }
        }
        // Every request was taken without waiting for the held file, and none is answered yet.
        #expect(first.store.queuedForTesting == 20)
        #expect(answered.load(ordering: .relaxed) == 0)
        release.signal()
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(answered.load(ordering: .relaxed) == 20)
        #expect(first.store.largestBatch == 20)
        first.close()
        let second = try ServerOnFile(path: path)
        defer { second.close() }
        let tokens = second.call("GET", "/admin/projects/demo/push-tokens").json?["push_tokens"]?.arrayValue ?? []
        #expect(tokens.map { $0["token"]?.stringValue } == (0..<20).map { "t\($0)" })
    }

    @Test func aRefusedCommitAnswers503AndTakesBackWhatWasPlannedOnIt() throws {
        let dir = try TemporaryDirectory()
        let server = try ServerOnFile(path: dir.file("refused.db"))
        defer { server.close() }
        #expect(server.call("PUT", "/v1/projects/demo/push-tokens/kept", #"{"platform": "ios"}"#).status == 204)
        #expect(server.call("POST", "/admin/projects/demo/faults", #"{"kind": "status", "status": 500}"#).status == 200)
        server.store.limitGrowthForTesting()
        let release = DispatchSemaphore(value: 0)
        server.store.holdWriterForTesting(until: release)
        let statuses = Mutex<[String: Int]>([:])
        let group = DispatchGroup()
        // Pages the file may not grow by; under 64 KiB, so the body is still handled on the loop
        // in order with the token after it (larger admin bodies move to a queue of their own:
        // MockServer.inPlaceAdminBodyBytes).
        let huge = String(repeating: "h", count: 16 * 1024)
        // The huge message cannot fit; the token registered after it was planned on top of it.
        for (name, method, target, body) in [
            (
                "rule", "POST", "/admin/projects/demo/rules",
                #"{"type": "required_update", "below": "2.0", "message": "\#(huge)"}"#
            ),
            ("token", "PUT", "/v1/projects/demo/push-tokens/after", #"{"platform": "ios"}"#),
        ] {
            group.enter()
            let request = HTTPRequest(
                method: method,
                target: target,
                headers: HTTPHeaders([("Content-Type", "application/json")]),
                body: Array(body.utf8)
            )
            server.server.respond(to: request) { reply in
                if case .response(let response) = reply { statuses.withLock { $0[name] = response.status } }
                group.leave()
            }
        }
        release.signal()
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(statuses.withLock { $0 } == ["rule": 503, "token": 503])
        // Memory is back to the file: no rule, only the first token; the armed fault stays.
        #expect(server.call("GET", "/admin/projects/demo/rules").json?["rules"]?.arrayValue == [])
        let tokens = server.call("GET", "/admin/projects/demo/push-tokens").json?["push_tokens"]?.arrayValue ?? []
        #expect(tokens.map { $0["token"]?.stringValue } == ["kept"])
        #expect(server.call("GET", "/admin/projects/demo/faults").json?["faults"]?.arrayValue?.count == 1)
        // And the file takes small writes again.
        #expect(server.call("DELETE", "/v1/projects/demo/push-tokens/kept").status == 204)
    }
}
