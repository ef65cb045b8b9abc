#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file-system calls the store makes outside SQLite, each wrapped once: read errno at
/// once, retry EINTR, turn failures into text a person can act on.
enum FileSystem {
    enum Prefix: Equatable {
        case missing
        case bytes([UInt8])
    }

    /// The file's first `count` bytes, or `.missing` when there is no file at `path`.
    static func readPrefix(_ path: String, count: Int) -> Result<Prefix, FileSystemError> {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer for ever.
        let fd = retrying { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        if fd < 0 {
            let code = errno
            return code == ENOENT ? .success(.missing) : .failure(FileSystemError(code: code, doing: "reading"))
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) != 0 { return .failure(FileSystemError(code: errno, doing: "reading")) }
        if info.st_mode & S_IFMT != S_IFREG {
            return .failure(
                FileSystemError(code: EINVAL, doing: "reading", detail: "not a regular file (a FIFO, device or folder)")
            )
        }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { raw in
                retrying { read(fd, raw.baseAddress.map { $0 + filled }, count - filled) }
            }
            if n < 0 { return .failure(FileSystemError(code: errno, doing: "reading")) }
            if n == 0 { break }
            filled += n
        }
        return .success(.bytes(Array(buffer[0..<filled])))
    }

    /// This process's id.
    static var processID: Int32 { getpid() }

    /// Removes `path` if it exists; true when nothing is left there.
    @discardableResult
    static func remove(_ path: String) -> Bool {
        unlink(path) == 0 || errno == ENOENT
    }

    /// Atomically puts `source` in place of `destination`, then flushes the directory entry.
    static func moveIntoPlace(_ source: String, to destination: String) -> FileSystemError? {
        if rename(source, destination) != 0 { return FileSystemError(code: errno, doing: "renaming") }
        syncDirectory(of: destination)
        return nil
    }

    /// Whether this process may create files in the folder that holds `path`.
    static func canCreateFiles(beside path: String) -> Bool {
        access(directory(of: path), W_OK) == 0
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Makes a rename durable: fsync on the directory that holds `path`.
    static func syncDirectory(of path: String) {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let fd = retrying { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// Writes the file's data to disk now (fdatasync through a descriptor of our own), ahead of
    /// a sync SQLite makes later with writers waiting: the write-ahead log's before a checkpoint.
    /// Only for files SQLite takes no locks on (the log; never the database file): closing any
    /// descriptor of a file drops this process's POSIX locks on it. False when the file is
    /// missing or the sync failed (SQLite's own sync still follows).
    @discardableResult
    static func syncData(_ path: String) -> Bool {
        let fd = retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return retrying { fdatasync(fd) } == 0
    }

    private static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }
}

/// A failed file-system call, with `strerror`'s text.
struct FileSystemError: Error, Equatable, CustomStringConvertible {
    var code: Int32
    var doing: String
    /// Said instead of `strerror(code)` when the system's words would mislead.
    var detail: String? = nil

    var description: String {
        "\(doing) failed: " + (detail ?? String(cString: strerror(code)))
    }
}
