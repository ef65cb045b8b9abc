import Foundation
import JSON
import Testing

@testable import Persistence

/// A file that is not ours, damaged, or newer stops the start, and keeps every byte it had.
@Suite struct StateFileRefusalTests {
    private func expectRefusal(
        of path: String,
        _ matches: (StateFileError) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before = TemporaryDirectory.bytes(path)
        do {
            let file = try StateFile.open(path: path, seed: Fixtures.seedState)
            file.close()
            Issue.record("opened a file it should refuse", sourceLocation: sourceLocation)
        } catch {
            #expect(matches(error), "unexpected refusal: \(error)", sourceLocation: sourceLocation)
            #expect(
                error.description.contains(path),
                "the message names the file: \(error)",
                sourceLocation: sourceLocation
            )
        }
        let unchanged = TemporaryDirectory.bytes(path) == before
        #expect(unchanged, "the file's bytes changed", sourceLocation: sourceLocation)
    }

    @Test func aGarbageFileIsRefusedAndUntouched() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("garbage.db")
        TemporaryDirectory.write((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }, to: path)
        expectRefusal(of: path) { if case .notADatabase = $0 { return true } else { return false } }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aShortFileWithTheSQLiteMagicIsRefused() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("short.db")
        TemporaryDirectory.write(Array("SQLite format 3\0 and then nothing".utf8), to: path)
        expectRefusal(of: path) { if case .notADatabase = $0 { return true } else { return false } }
    }

    @Test func anotherProgramsSQLiteFileIsRefusedAndUntouched() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("foreign.db")
        do {
            let connection = try SQLiteConnection(path: path, flags: SQLiteConnection.readWriteCreate)
            try connection.execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')")
        }
        expectRefusal(of: path) { if case .foreign(_, applicationID: 0) = $0 { return true } else { return false } }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aFileFromANewerSchemaIsRefusedNamingBothVersions() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("newer.db")
        try StateFile.open(path: path, seed: Fixtures.seedState).close()
        do {
            let connection = try SQLiteConnection(path: path, flags: SQLiteConnection.readWriteCreate)
            try connection.execute("PRAGMA user_version = 99")
        }
        let newer = StateSchema.currentVersion
        expectRefusal(of: path) { error in
            guard case .newerSchema(_, found: 99, supported: newer) = error else { return false }
            return error.description.contains("99") && error.description.contains("newer lerix-mock")
        }
    }

    @Test func aDamagedFileOfOursIsRefusedAndUntouched() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("damaged.db")
        let file = try StateFile.open(path: path, seed: Fixtures.seedState)
        for i in 0..<200 {
            try file.write([
                .tokenUpserted(
                    project: "demo",
                    token: Fixtures.token("token-\(i)-" + String(repeating: "x", count: 100))
                )
            ])
        }
        file.close()
        var bytes = try #require(TemporaryDirectory.bytes(path))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        #expect(bytes.count >= pageSize * 4)
        // Scribble over everything after the first page: the header still says "ours".
        for i in pageSize..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        TemporaryDirectory.write(bytes, to: path)
        expectRefusal(of: path) { if case .corrupt = $0 { return true } else { return false } }
    }

    @Test func aFileInUseByAnotherStoreIsRefused() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("busy.db")
        let first = try StateFile.open(path: path, seed: Fixtures.seedState)
        defer { first.close() }
        #expect(throws: StateFileError.inUse(path: path)) {
            try StateFile.open(path: path, seed: Fixtures.seedState).close()
        }
        try first.write([.tokenUpserted(project: "demo", token: Fixtures.token("still-mine"))])
    }

    @Test func aMissingDirectoryIsReportedNamingTheFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("no/such/dir/state.db")
        #expect {
            try StateFile.open(path: path, seed: Fixtures.seedState).close()
        } throws: { error in
            guard let error = error as? StateFileError, case .cannotOpen = error else { return false }
            return error.description.contains(path)
        }
    }
}
