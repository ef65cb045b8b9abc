import Foundation

/// Files tests read and write: the package's own folders, and throwaway folders of scenario
/// or config files.
public enum TestFiles {
    /// The package root (this file is `Tests/TestSupport/TestFiles.swift`).
    public static var packageRoot: String {
        let parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        return parts.dropLast(3).joined(separator: "/")
    }

    /// A new folder under the system temporary folder holding `files` (name → text); the
    /// caller removes it (`defer { try? FileManager.default.removeItem(atPath: dir) }`).
    public static func folder(_ files: [String: String] = [:]) throws -> String {
        let path = FileManager.default.temporaryDirectory.path + "/lerix-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8) }
        return path
    }
}
