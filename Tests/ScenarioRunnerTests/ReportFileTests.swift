import Foundation
import ScenarioRunner
import TestSupport
import Testing

/// `--junit` and the other report paths are checked before a run starts (through the POSIX layer).
@Suite struct ReportFileTests {
    @Test func aFIFOIsRefusedAtOnceAndAFolderIsNamedAsOne() throws {
        let dir = try TestFiles.folder([:])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(mkfifo(dir + "/pipe.xml", 0o600) == 0)
        let fifo = ReportFile.problem(writing: dir + "/pipe.xml")
        #expect(fifo == "cannot write \(dir)/pipe.xml: not a regular file (a FIFO or device); give a file path")
        #expect(ReportFile.problem(writing: dir) == "cannot write \(dir): it is a folder")
    }

    @Test func aNewPathIsProvedWritableAndLeftAbsentAndAnExistingFileIsKept() throws {
        let dir = try TestFiles.folder(["old.xml": "kept"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(ReportFile.problem(writing: dir + "/new.xml") == nil)
        #expect(!FileManager.default.fileExists(atPath: dir + "/new.xml"))
        #expect(ReportFile.problem(writing: dir + "/old.xml") == nil)
        #expect(try String(contentsOfFile: dir + "/old.xml", encoding: .utf8) == "kept")
        let missingFolder = ReportFile.problem(writing: dir + "/no/such/folder.xml")
        #expect(
            missingFolder?.hasPrefix("cannot write \(dir)/no/such/folder.xml: ") == true,
            "\(missingFolder ?? "nil")"
        )
    }
}
