import Foundation
import JSON
import MockServer
import Testing

@testable import Persistence

/// Issue 42 item 10: files `serve` must refuse without touching them or hanging on them.
@Suite struct RefusedFileBytesTests {
    /// A file of ours whose rows no longer read back as a state (here a rule id past the largest,
    /// which once crashed every restart) used to be opened for writing first: the log-mode switch
    /// and checkpoint rewrote its header (bytes 24-27, the change counter, and 92-95).
    @Test func aFileWhoseRowsDoNotReadBackIsRefusedWithEveryByteKept() throws {
        let stored = try Fixtures.closedStateFile(
            "state.db",
            holding: [.ruleUpserted(project: "demo", rule: Fixtures.rule("r9223372036854775807", below: "2.0"))]
        )
        defer { withExtendedLifetime(stored.dir) {} }  // the folder goes with it
        let path = stored.path
        let before = try #require(TemporaryDirectory.bytes(path))
        #expect {
            _ = try SQLiteStateStore.open(path: path, seed: .defaultSeed)
        } throws: { error in
            guard let error = error as? StateFileError, case .corrupt = error else { return false }
            return error.description.contains(path) && error.description.contains("does not read back")
        }
        let after = try #require(TemporaryDirectory.bytes(path))
        let changed = (0..<min(before.count, after.count)).filter { before[$0] != after[$0] }
        #expect(after == before, "bytes changed at \(changed.prefix(8)), sizes \(before.count) and \(after.count)")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aFIFOAsTheStateFileIsRefusedAtOnce() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.fifo")
        #expect(mkfifo(path, 0o600) == 0)
        let started = Date()
        #expect {
            _ = try SQLiteStateStore.open(path: path, seed: .defaultSeed)
        } throws: { error in
            "\(error)".contains("not a regular file") && "\(error)".contains(path)
        }
        #expect(Date().timeIntervalSince(started) < 5, "it did not wait for a writer")
    }

    @Test func aFIFOAsTheConfigIsRefusedAtOnce() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("config.json")
        #expect(mkfifo(path, 0o600) == 0)
        #expect {
            _ = try ConfigFile.load(path: path)
        } throws: { error in
            "\(error)".contains("not a regular file") && "\(error)".contains(path)
        }
    }

    @Test func aJSONConfigWithARepeatedKeyIsRefusedAtItsLineLikeYAML() {
        let text = "{\"projects\": [{\"key\": \"demo\",\n  \"key\": \"other\"}]}"
        #expect {
            _ = try ConfigFile.parse(Array(text.utf8), file: "seed.json")
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.description.contains("seed.json:2:3") && error.description.contains("duplicate")
        }
        #expect(throws: ConfigError.self) {
            _ = try ConfigFile.parse(Array("projects:\n  - key: demo\n    key: other\n".utf8), file: "seed.yaml")
        }
    }

    // As root, permissions do not bite (as in StateFileWriteFailureTests).
    @Test(.enabled(if: geteuid() != 0, "root ignores file permissions: run as another user to check read-only folders"))
    func aWritableFileInAReadOnlyFolderStartsAndRefusesWrites() throws {
        let (dir, path) = try Fixtures.closedStateFile(
            "state.db",
            holding: [.tokenUpserted(project: "demo", token: Fixtures.token("kept"))]
        )
        chmod(dir.path, 0o555)
        defer { chmod(dir.path, 0o755) }
        try Fixtures.expectLoadsButRefusesWrites(path)
    }
}
