#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Posix {
    /// Writes all of `bytes` to a file, pipe or terminal with `write(2)` (sockets use
    /// ``write(_:_:)``). Returns false when the descriptor failed or would block.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// One `write(2)` to a pipe or file (sockets use ``write(_:_:)``): `EINTR` retried, `EAGAIN`
    /// on a non-blocking descriptor is ``IOResult/wouldBlock``; a reader that went away (`EPIPE`,
    /// with `SIGPIPE` ignored) and other failures throw.
    public static func writeSome(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws -> IOResult {
        while true {
            let n = Glibc.write(fd, bytes.baseAddress, bytes.count)
            if n >= 0 { return .processed(n) }
            let e = errno
            switch e {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SystemCallError(call: "write", errno: e)
            }
        }
    }

    /// ``writeAll(_:_:)-(_,UnsafeRawBufferPointer)`` for an array.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// Opens the regular file at `path` for reading (close-on-exec). A FIFO, device or folder is
    /// refused (``SystemCallError/notRegularFile(_:)``): it is opened non-blocking, so a FIFO
    /// with no writer cannot hold the caller, and looked at before anything is read.
    public static func openForReading(_ path: String) throws(SystemCallError) -> Int32 {
        let fd = retrying { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemCallError.last("open", subject: path) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemCallError.last("stat", subject: path)
            close(fd)
            throw error
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw SystemCallError.notRegularFile(path)
        }
        return fd
    }

    /// What is at a path, as far as a caller that reads or writes files needs to know.
    public enum FileKind: Sendable, Equatable {
        case regular
        case folder
        /// A FIFO, a device or a socket: never opened as a file (it could block for ever).
        case other
    }

    /// What is at a path and how many bytes it holds.
    public struct FileStatus: Sendable, Equatable {
        public var kind: FileKind
        /// `st_size`: the bytes of a regular file (a sparse one counts its holes).
        public var size: Int
    }

    /// What is at `path` (links followed), or nil when nothing is.
    public static func kind(of path: String) -> FileKind? { status(of: path)?.kind }

    /// What is at `path` (links followed) and its size, or nil when nothing is: a reader with a
    /// size cap can name the size of a file it refuses unread.
    public static func status(of path: String) -> FileStatus? {
        var info = stat()
        guard retrying({ stat(path, &info) }) == 0 else { return nil }
        let kind: FileKind
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .folder
        default: kind = .other
        }
        return FileStatus(kind: kind, size: Int(info.st_size))
    }

    /// The whole file at `path`; throws when it cannot be read or holds more than `limit` bytes
    /// (`EFBIG`), so a huge file is refused rather than read whole.
    public static func readFile(_ path: String, limit: Int = .max) throws(SystemCallError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { raw in retrying { Glibc.read(fd, raw.baseAddress, raw.count) } }
            if n < 0 { throw SystemCallError.last("read", subject: path) }
            if n == 0 { return out }
            out.append(contentsOf: buffer[0..<n])
            if out.count > limit {
                throw SystemCallError(call: "read", errno: SystemCallError.fileTooLarge, subject: path)
            }
        }
    }

    /// The file's first `count` bytes (fewer when it is shorter).
    public static func readPrefix(_ path: String, count: Int) throws(SystemCallError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { raw in
                retrying { Glibc.read(fd, raw.baseAddress.map { $0 + filled }, count - filled) }
            }
            if n < 0 { throw SystemCallError.last("read", subject: path) }
            if n == 0 { break }
            filled += n
        }
        return Array(buffer[0..<filled])
    }

    /// Creates (or empties) the file at `path` with `permissions` and writes `bytes` to it. An
    /// existing file keeps its permissions unless `permissions` are owner-only (a private key):
    /// those are set on it too.
    public static func writeFile(
        _ bytes: [UInt8],
        to path: String,
        permissions: UInt32 = 0o644
    )
        throws(SystemCallError)
    {
        let fd = retrying { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(permissions)) }
        guard fd >= 0 else { throw SystemCallError.last("open", subject: path) }
        defer { close(fd) }
        if permissions & 0o077 == 0, retrying({ fchmod(fd, mode_t(permissions)) }) != 0 {
            throw SystemCallError.last("chmod", subject: path)
        }
        guard writeAll(fd, bytes) else { throw SystemCallError.last("write", subject: path) }
    }

    /// Why a file at `path` cannot be written, or nil: an existing file is opened for appending
    /// and left as it is; a new one is created to prove it can be, then removed. A FIFO or device
    /// is refused (opened non-blocking, so one with no reader cannot hold the caller).
    public static func checkWritable(_ path: String) -> SystemCallError? {
        let existed = exists(path)
        let fd = retrying { open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0o644) }
        guard fd >= 0 else { return SystemCallError.last("open", subject: path) }
        var info = stat()
        let regular = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        close(fd)
        if !regular { return SystemCallError.notRegularFile(path) }
        if !existed { remove(path) }
        return nil
    }

    /// Creates the file at `path` if there is none (an existing one is left as it is).
    public static func touch(_ path: String) throws(SystemCallError) {
        let fd = retrying { open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw SystemCallError.last("open", subject: path) }
        close(fd)
    }

    /// Something (a file, a folder, a link) is at `path`.
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Creates the folder at `path`; one that is already there is fine.
    public static func makeFolder(_ path: String, permissions: UInt32 = 0o755) throws(SystemCallError) {
        guard mkdir(path, mode_t(permissions)) == 0 || errno == EEXIST else {
            throw SystemCallError.last("mkdir", subject: path)
        }
    }

    /// Removes `path` if it exists; true when nothing is left there.
    @discardableResult
    public static func remove(_ path: String) -> Bool {
        unlink(path) == 0 || errno == ENOENT
    }

    /// Atomically puts `source` in place of `destination`, then flushes the directory entry.
    public static func moveIntoPlace(_ source: String, to destination: String) throws(SystemCallError) {
        guard rename(source, destination) == 0 else { throw SystemCallError.last("rename", subject: destination) }
        syncDirectory(of: destination)
    }

    /// The folder that holds `path` ("." for a bare name).
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Whether this process may create files in the folder that holds `path`.
    public static func canCreateFiles(beside path: String) -> Bool {
        access(folder(of: path), W_OK) == 0
    }

    /// Makes a rename durable: fsync on the directory that holds `path`.
    public static func syncDirectory(of path: String) {
        let fd = retrying { open(folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// Writes the file's data to disk now (`fdatasync` through a descriptor of our own). False
    /// when the file is missing or the sync failed. Closing the descriptor drops this process's
    /// POSIX locks on the file: never use it on a file someone locks.
    @discardableResult
    public static func syncData(_ path: String) -> Bool {
        let fd = retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return retrying { fdatasync(fd) } == 0
    }
}
