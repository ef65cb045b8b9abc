#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ``Storage`` as one file per key in a folder. A save writes a temporary file and renames it
/// over the old one, so a crash mid-write never leaves half a file.
///
/// ```swift
/// let storage = try FileStorage(folder: applicationSupport + "/Lerix")
/// ```
public struct FileStorage: Storage {
    /// The folder holding one file per key.
    public let folder: String

    /// Uses `folder`, creating it (and its parents) when missing.
    public init(folder: String) throws(StorageError) {
        var path = folder
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.folder = path
        try Self.makeDirectories(path)
    }

    /// The file's bytes, or nil when it does not exist or cannot be read.
    public func load(_ key: String) -> [UInt8]? {
        let fd = open(path(key), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { return out }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes a temporary file and renames it over the key's file.
    public func save(_ key: String, _ bytes: [UInt8]) throws(StorageError) {
        let target = path(key)
        let temporary = target + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError("cannot write \(temporary): \(Self.reason())") }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                let why = Self.reason()
                close(fd)
                unlink(temporary)
                throw StorageError("cannot write \(temporary): \(why)")
            }
            offset += n
        }
        close(fd)
        guard rename(temporary, target) == 0 else {
            let why = Self.reason()
            unlink(temporary)
            throw StorageError("cannot replace \(target): \(why)")
        }
    }

    private func path(_ key: String) -> String {
        // Keys are the SDK's own names; anything else is flattened so it cannot leave the folder.
        let safe = String(key.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        return folder + "/" + (safe.hasPrefix(".") ? "_" + safe : safe)
    }

    private static func makeDirectories(_ path: String) throws(StorageError) {
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o755) != 0 && errno != EEXIST {
                throw StorageError("cannot create folder \(built): \(reason())")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StorageError("\(path) is not a folder")
        }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
