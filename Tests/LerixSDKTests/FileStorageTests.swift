import Foundation
import LerixSDK
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct FileStorageTests {
    static func temporaryFolder() -> String {
        var template = Array("/tmp/lerix-sdk-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { buffer -> UnsafeMutablePointer<CChar>? in
            guard let base = buffer.baseAddress else { return nil }
            return mkdtemp(base)
        }
        return path.map { String(cString: $0) } ?? "/tmp/lerix-sdk-fallback"
    }

    @Test func savesAtomicallyAndCreatesAMissingFolder() throws {
        let folder = Self.temporaryFolder() + "/nested/device-1"
        let storage = try FileStorage(folder: folder)
        #expect(storage.load("answer.json") == nil)
        try storage.save("answer.json", Array("first".utf8))
        try storage.save("answer.json", Array("second".utf8))
        #expect(storage.load("answer.json") == Array("second".utf8))
        #expect(access(folder + "/answer.json.tmp", F_OK) != 0, "no temporary file left behind")
        let again = try FileStorage(folder: folder)
        #expect(again.load("answer.json") == Array("second".utf8))
    }

    @Test func aFileWhereTheFolderShouldBeIsAnErrorNotACrash() throws {
        let folder = Self.temporaryFolder()
        let storage = try FileStorage(folder: folder)
        try storage.save("blocker", [1])
        #expect(throws: StorageError.self) { try FileStorage(folder: folder + "/blocker") }
    }
}
