import Foundation
import Glibc
import MockServer
import TestSupport
import Testing

@testable import ScenarioLanguage
@testable import ScenarioRunner

/// Scenario files (and `serve --config` YAML) cost what they hold: a size cap like the
/// config's, a long key held once however many nodes sit below it, and a bad byte reported at
/// its line and column.
@Suite struct ScenarioFileBudgetTests {

    /// The issue's file (a 256 KiB key over a 20,000-item list), scaled down to 64 KiB over
    /// 4,000: every item's position and node used to hold a JSON Pointer with the key.
    static let longKeyOverList: [UInt8] = {
        let key = String(repeating: "k", count: 64 << 10)
        return Array(("name: big\n? " + key + "\n:\n" + String(repeating: "  - x\n", count: 4_000)).utf8)
    }()

    @Test func aLongKeyOverAListCostsItsKeyOnceInScenarios() {
        let (errors, held) = ResidentMemory.growth { () -> [ScenarioError] in
            do {
                _ = try Scenario.parse(Self.longKeyOverList, file: "big.yaml")
                return []
            } catch let error as ScenarioFileErrors {
                return error.errors
            } catch {
                return []
            }
        }
        #expect(held < 96 << 20, "parsing held \(held) bytes")
        #expect(errors.contains { $0.message.hasPrefix("unknown key 'kkkk") && $0.location.mark.line == 2 })
    }

    @Test func aLongKeyOverAListCostsItsKeyOnceInServeConfig() {
        let (message, held) = ResidentMemory.growth { () -> String in
            do {
                _ = try ConfigFile.parse(Self.longKeyOverList, file: "seed.yaml")
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(held < 96 << 20, "parsing held \(held) bytes")
        #expect(!message.isEmpty)
    }

    /// Scenario files had no size cap (270 MiB read whole took 1.3 GB); FIFOs hung the runner.
    @Test func aScenarioFileOverTheCapOrNotARegularFileIsRefusedUnread() throws {
        let dir = try TestFiles.folder(["ok.yaml": "name: ok\ndevices: {}\nsteps:\n  - expect_pushes: {count: 0}\n"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let big = dir + "/big.yaml"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: UInt64(ScenarioSuite.maximumFileBytes + 1))  // sparse: no disk used
        try handle.close()
        #expect(mkfifo(dir + "/pipe.yaml", 0o600) == 0)
        let suite = try ScenarioSuite.load(paths: [dir])
        #expect(suite.scenarios.map(\.name) == ["ok"])
        let problems = suite.brokenFiles.map(\.description)
        #expect(problems.contains { $0.contains("big.yaml") && $0.contains("larger than the 16 MiB") }, "\(problems)")
        #expect(problems.contains { $0.contains("pipe.yaml") && $0.contains("not a regular file") }, "\(problems)")
    }

    /// The reader says why, in the words the runner has always used: the size of a file over
    /// the cap (read from the file's status, before a byte is read), a missing file, a folder.
    @Test func theFileReaderNamesTheSizeOfAFileOverTheCap() throws {
        let dir = try TestFiles.folder(["ok.yaml": "name: ok\n"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let big = dir + "/big.yaml"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, off_t(ScenarioSuite.maximumFileBytes + 1)) == 0)  // sparse: no disk used
        func problem(_ path: String) -> String? {
            if case .failure(let problem) = ScenarioSuite.readFile(path) { return problem.message }
            return nil
        }
        #expect(problem(big) == "16777217 bytes, larger than the 16 MiB a scenario file may hold")
        #expect(problem(dir + "/none.yaml") == "no such file")
        #expect(problem(dir) == "not a regular file")
        #expect(problem(dir + "/ok.yaml") == nil)
        if case .success(let bytes) = ScenarioSuite.readFile(dir + "/ok.yaml") {
            #expect(bytes == Array("name: ok\n".utf8))
        } else {
            Issue.record("ok.yaml was not read")
        }
    }

    /// `serve --config` YAML: the same reader errors, at their line and column (they were 1:1).
    @Test func invalidUTF8InAConfigIsReportedAtItsLineAndColumn() {
        do {
            _ = try ConfigFile.parse(
                Array("projects:\n  - key: demo\n    name: ".utf8) + [0xC3, 0x28, 0x0A],
                file: "s.yaml"
            )
            Issue.record("invalid UTF-8 was taken")
        } catch {
            #expect("\(error)".contains("s.yaml:3:11"), "\(error)")
        }
    }

    @Test func invalidUTF8InAScenarioIsReportedAtItsLine() {
        do {
            _ = try Scenario.parse(
                Array("name: x\ndevices: {}\nsteps:\n  - at: ".utf8) + [0xC3, 0x28, 0x0A],
                file: "u.yaml"
            )
            Issue.record("invalid UTF-8 was taken")
        } catch {
            #expect(error.errors.first.map { "\($0.location)".hasPrefix("u.yaml:4:") } == true, "\(error)")
        }
    }
}
