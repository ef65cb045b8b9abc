import Foundation

/// A fresh directory under the system temp folder, removed with everything in it on deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "lerix-persistence-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit {
        chmod(path, 0o700)
        try? FileManager.default.removeItem(atPath: path)
    }

    static func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    static func write(_ bytes: [UInt8], to path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }
}
