import Foundation
import HTTP
import JSON
import TestSupport
import Testing

@testable import Persistence

/// `lerix-mock serve --state` as a person meets it: refusals name the file and leave it alone,
/// and an existing file wins over `--config`.
@Suite struct StateCommandLineTests {
    @Test func aGarbageStateFileStopsTheStartNamingItAndKeepsItsBytes() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("notes.txt")
        let bytes = Array("my shopping list, not a database\n".utf8) + [UInt8](repeating: 7, count: 200)
        TemporaryDirectory.write(bytes, to: path)
        let result = try ServerProcess.run(["serve", "--state", path, "--port", "0", "--quiet"])
        #expect(result.status != 0)
        #expect(result.stderr.contains(path))
        #expect(result.stderr.contains("not a lerix-mock state file"))
        let unchanged = TemporaryDirectory.bytes(path) == bytes
        #expect(unchanged)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aStateFileFromANewerLerixMockIsRefusedWithBothVersions() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("newer.db")
        try StateFile.open(path: path, seed: Fixtures.seedState).close()
        do {
            let connection = try SQLiteConnection(path: path, flags: SQLiteConnection.readWriteCreate)
            try connection.execute("PRAGMA user_version = 42")
        }
        let before = TemporaryDirectory.bytes(path)
        let result = try ServerProcess.run(["serve", "--state", path, "--port", "0", "--quiet"])
        #expect(result.status != 0)
        #expect(result.stderr.contains(path) && result.stderr.contains("schema version 42"))
        let unchanged = TemporaryDirectory.bytes(path) == before
        #expect(unchanged)
    }

    @Test func anExistingStateFileWinsOverConfigWhichOnlySeedsANewOne() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        let first = dir.file("first.json")
        let second = dir.file("second.json")
        TemporaryDirectory.write(Array(#"{"projects": [{"key": "alpha"}]}"#.utf8), to: first)
        TemporaryDirectory.write(Array(#"{"projects": [{"key": "beta"}]}"#.utf8), to: second)

        func projects(_ server: ServerProcess) throws -> [String] {
            let client = try TestHTTPClient(port: server.port)
            let response = try client.send(HTTPRequest(method: "GET", target: "/admin/projects"))
            return (try? JSON.parse(response.body))?["projects"]?.arrayValue?.compactMap { $0["key"]?.stringValue }
                ?? []
        }

        let created = try ServerProcess.start(["serve", "--state", path, "--config", first, "--port", "0", "--quiet"])
        #expect(try projects(created) == ["alpha"])
        let client = try TestHTTPClient(port: created.port)
        #expect(
            try client.send(HTTPRequest(method: "PUT", target: "/admin/projects/gamma", body: Array("{}".utf8))).status
                < 300
        )
        created.stop()

        let reopened = try ServerProcess.start(["serve", "--state", path, "--config", second, "--port", "0", "--quiet"])
        defer { reopened.stop() }
        #expect(try projects(reopened) == ["alpha", "gamma"])
        // Reset goes back to the seed the file was created with, not to --config's.
        let admin = try TestHTTPClient(port: reopened.port)
        #expect(try admin.send(HTTPRequest(method: "POST", target: "/admin/reset")).status == 200)
        #expect(try projects(reopened) == ["alpha"])
    }
}
