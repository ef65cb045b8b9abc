import Dispatch
import Foundation
import HTTP
import JSON
import MockServer
import POSIX
import Synchronization
import Testing

@testable import Persistence

/// `serve --state` with the default durability: a server loop commits its batch's writes itself
/// at the batch's end (``MockServer/batchEnded()``), with no thread switch, and never waits for
/// the file: when something else holds it, or commits sync, the commit moves to the background.
@Suite struct InPlaceCommitTests {
    /// One answer: its status and whether it ran on the thread that asked for it.
    struct Answer: Sendable, Equatable {
        let status: Int
        let onCaller: Bool
    }

    /// Answers by name, as they arrive.
    final class Answers: Sendable {
        private let byName = Mutex<[String: Answer]>([:])

        /// Hands `request` to the server from the calling thread, recording its answer under `name`.
        func send(_ server: MockServer, _ name: String, _ method: String, _ target: String, _ body: String) {
            let caller = pthread_self()
            let request = HTTPRequest(
                method: method,
                target: target,
                headers: HTTPHeaders([("Content-Type", "application/json")]),
                body: Array(body.utf8)
            )
            server.respond(to: request) { [self] reply in
                guard case .response(let response) = reply else { return }
                let answer = Answer(status: response.status, onCaller: pthread_equal(caller, pthread_self()) != 0)
                byName.withLock { $0[name] = answer }
            }
        }

        func register(_ server: MockServer, _ token: String) {
            send(server, token, "PUT", "/v1/projects/demo/push-tokens/\(token)", #"{"platform": "ios"}"#)
        }

        var all: [String: Answer] { byName.withLock { $0 } }
    }

    static func storedTokens(_ path: String) throws -> [String] {
        let reopened = try SQLiteStateStore.open(path: path, seed: .defaultSeed)
        defer { reopened.close() }
        return try reopened.load()?.projects.first?.pushTokens.map(\.token) ?? []
    }

    @Test func aBatchEndCommitsTheBatchsWritesOnItsThreadAndAnswersThemThere() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("in-place.db")
        let server = try ServerOnFile(path: path, commitsAtBatchEnd: true)
        let answers = Answers()
        for i in 0..<5 { answers.register(server.server, "t\(i)") }
        // Taken and applied to memory, but not committed, so not answered.
        #expect(server.store.queuedForTesting == 5)
        #expect(answers.all.isEmpty)
        server.server.batchEnded()
        let expected = Dictionary(uniqueKeysWithValues: (0..<5).map { ("t\($0)", Answer(status: 204, onCaller: true)) })
        #expect(answers.all == expected, "committed and answered inside batchEnded, on its thread")
        #expect(server.store.largestBatch == 5)
        // A batch end with nothing queued does nothing.
        server.server.batchEnded()
        server.close()
        #expect(try Self.storedTokens(path) == (0..<5).map { "t\($0)" })
    }

    @Test func oneLoopsBatchEndCommitsTheWritesAnotherLoopQueuedToo() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("two-loops.db")
        let server = try ServerOnFile(path: path, commitsAtBatchEnd: true)
        let answers = Answers()
        let queued = DispatchSemaphore(value: 0)
        let endBatch = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        // The other "loop": queues a write, and ends its batch only once this one has.
        let mock = server.server
        Thread {
            answers.register(mock, "other")
            queued.signal()
            endBatch.wait()
            mock.batchEnded()
            ended.signal()
        }.start()
        #expect(queued.wait(timeout: .now() + 30) == .success)
        answers.register(server.server, "mine")
        server.server.batchEnded()
        // Both committed here; the other loop's answer ran here too (a server loop's reply
        // closure hops back to its own queue).
        #expect(
            answers.all == ["mine": Answer(status: 204, onCaller: true), "other": Answer(status: 204, onCaller: false)]
        )
        #expect(server.store.largestBatch == 2)
        endBatch.signal()
        #expect(ended.wait(timeout: .now() + 30) == .success)
        #expect(answers.all.count == 2)
        server.close()
        #expect(try Self.storedTokens(path) == ["other", "mine"])
    }

    @Test func aBatchEndThatFindsTheFileHeldReturnsAndTheBackgroundCommits() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("held.db")
        let server = try ServerOnFile(path: path, commitsAtBatchEnd: true)
        let answers = Answers()
        let release = DispatchSemaphore(value: 0)
        server.store.holdWriterForTesting(until: release)
        for i in 0..<3 { answers.register(server.server, "t\(i)") }
        // Returns although the file is held (a loop must not wait), with nothing answered yet.
        server.server.batchEnded()
        #expect(answers.all.isEmpty)
        // Writes queued meanwhile join the background drain.
        answers.register(server.server, "t3")
        server.server.batchEnded()
        release.signal()
        #expect(PersistenceWait.until { answers.all.count == 4 })
        #expect(answers.all.values.allSatisfy { $0 == Answer(status: 204, onCaller: false) })
        server.close()
        #expect(try Self.storedTokens(path) == (0..<4).map { "t\($0)" })
    }

    @Test func withPowerLossDurabilityTheCommitRunsInTheBackground() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("power-loss.db")
        let server = try ServerOnFile(path: path, durability: .powerLoss, commitsAtBatchEnd: true)
        let answers = Answers()
        answers.register(server.server, "t0")
        answers.register(server.server, "t1")
        server.server.batchEnded()
        #expect(PersistenceWait.until { answers.all.count == 2 })
        // The fsync of each commit never runs on the loop.
        #expect(
            answers.all == ["t0": Answer(status: 204, onCaller: false), "t1": Answer(status: 204, onCaller: false)]
        )
        server.close()
        #expect(try Self.storedTokens(path) == ["t0", "t1"])
    }

    @Test func aRefusedInPlaceCommitAnswers503AndPutsMemoryBack() throws {
        let dir = try TemporaryDirectory()
        let server = try ServerOnFile(path: dir.file("refused.db"), commitsAtBatchEnd: true)
        defer { server.close() }
        let answers = Answers()
        answers.register(server.server, "kept")
        server.server.batchEnded()
        #expect(answers.all["kept"] == Answer(status: 204, onCaller: true))
        server.store.limitGrowthForTesting()
        // Pages the file may not grow by; under 64 KiB, so the body is still handled on the loop
        // (larger admin bodies move to a queue of their own: MockServer.inPlaceAdminBodyBytes).
        let huge = String(repeating: "h", count: 16 * 1024)
        answers.send(
            server.server,
            "rule",
            "POST",
            "/admin/projects/demo/rules",
            #"{"type": "required_update", "below": "2.0", "message": "\#(huge)"}"#
        )
        answers.register(server.server, "after")
        server.server.batchEnded()
        #expect(answers.all["rule"] == Answer(status: 503, onCaller: true))
        #expect(answers.all["after"] == Answer(status: 503, onCaller: true))
        #expect(server.call("GET", "/admin/projects/demo/rules").json?["rules"]?.arrayValue == [])
        let tokens = server.call("GET", "/admin/projects/demo/push-tokens").json?["push_tokens"]?.arrayValue ?? []
        #expect(tokens.map { $0["token"]?.stringValue } == ["kept"])
    }

    /// Keeps each push's completion, to call later from another thread, as a gateway does.
    final class LaterSink: PushSink {
        let kept = Mutex<[(OutgoingPush, @Sendable ([TokenDelivery]) -> Void)]>([])

        func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
            kept.withLock { $0.append((push, completion)) }
        }
    }

    @Test func aWriteMadeOutsideARequestCommitsWithoutABatchEnd() throws {
        let dir = try TemporaryDirectory()
        let sink = LaterSink()
        let server = try ServerOnFile(path: dir.file("results.db"), commitsAtBatchEnd: true, pushSink: sink)
        defer { server.close() }
        let answers = Answers()
        answers.register(server.server, "t0")
        answers.send(
            server.server,
            "rule",
            "POST",
            "/admin/projects/demo/rules",
            #"{"type": "required_update", "below": "2.0"}"#
        )
        server.server.batchEnded()
        #expect(answers.all["rule"]?.status == 201)
        let kept = sink.kept.withLock { $0 }
        #expect(kept.count == 1)
        // Delivery results arrive on a thread that ends no batch: they commit all the same.
        for (push, completion) in kept {
            DispatchQueue.global().async {
                completion(push.tokens.map { TokenDelivery(token: $0.token, result: .delivered) })
            }
        }
        #expect(
            PersistenceWait.until {
                ((try? server.store.loadSnapshot())?.projects.first?.pushes.first?.counts.delivered ?? 0) == 1
            }
        )
    }
}

/// The write-ahead log under commits that do not sync: SQLite's own checkpoints are off, the
/// committer checkpoints in the background, and the log starts over there, never in a commit.
@Suite struct BackgroundCheckpointTests {
    @Test func theLogStartsOverWhenTheFileIsOpened() throws {
        let dir = try TemporaryDirectory()
        let (database, _) = try StateDatabase.open(
            path: dir.file("open.db"),
            seed: Fixtures.seedState,
            durability: .processCrash
        )
        // One frame: the page written to start the log over, after the checkpoint.
        #expect(database.connection.framesInLog == 1)
    }

    @Test func aLogThatReachesItsLimitIsCheckpointedInTheBackgroundAndNothingIsLost() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("checkpoint.db")
        do {
            let committer = GroupCommitter(
                database: try StateDatabase.open(path: path, seed: Fixtures.seedState, durability: .processCrash)
                    .database,
                checkpointAfter: 20
            )
            for i in 0..<30 {
                try committer.write([.tokenUpserted(project: "demo", token: Fixtures.token("t\(i)"))])
            }
            // Without a checkpoint the log would hold at least a frame per commit.
            #expect(PersistenceWait.until { (committer.read { $0.connection.framesInLog } ?? 30) < 20 })
            committer.close()
        }
        let reopened = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { reopened.close() }
        #expect(reopened.initialState.projects.first?.pushTokens.map(\.id) == (0..<30).map { "t\($0)" })
    }

    @Test func theLogIsSyncedAheadThroughADescriptorOfItsOwn() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("ahead.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { file.close() }
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("t"))])
        #expect(Posix.syncData(path + "-wal"))
        #expect(!Posix.syncData(dir.file("missing-wal")))
        // The server's lock on the database file is untouched (only the log was opened and closed).
        try file.write([.tokenUpserted(project: "demo", token: Fixtures.token("u"))])
        #expect(throws: StateFileError.self) { try StateFile.open(path: path, seed: Fixtures.seedState) }
    }

    @Test func commitsThatSyncLeaveCheckpointsToSQLite() throws {
        let dir = try TemporaryDirectory()
        let (database, _) = try StateDatabase.open(
            path: dir.file("full.db"),
            seed: Fixtures.seedState,
            durability: .powerLoss
        )
        let committer = GroupCommitter(database: database)
        try committer.write([.tokenUpserted(project: "demo", token: Fixtures.token("t"))])
        // No WAL hook of ours: the count is never kept.
        #expect(committer.read { $0.connection.framesInLog } == 0)
    }
}
