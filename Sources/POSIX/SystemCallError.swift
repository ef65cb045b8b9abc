#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which call, on what, and the `errno` it left, with its text.
///
/// ```swift
/// catch let error as SystemCallError { print(error) }   // "open /etc/x failed: Permission denied"
/// ```
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call, e.g. "bind".
    public var call: String
    public var errno: Int32
    /// What the call was about, e.g. "127.0.0.1:8080" or a path; may be empty.
    public var subject: String
    /// Said instead of `strerror(errno)` when the system's words would mislead (see
    /// ``notRegularFile(_:)``).
    public var detail: String?

    public init(call: String, errno: Int32, subject: String = "", detail: String? = nil) {
        self.call = call
        self.errno = errno
        self.subject = subject
        self.detail = detail
    }

    /// The failure of `call` just made: `errno` read now, before anything can change it.
    public static func last(_ call: String, subject: String = "") -> SystemCallError {
        SystemCallError(call: call, errno: currentErrno(), subject: subject)
    }

    public var description: String {
        subject.isEmpty ? "\(call) failed: \(reason)" : "\(call) \(subject) failed: \(reason)"
    }

    /// The `errno` text alone ("Connection refused"), or the ``detail`` said instead.
    public var reason: String { detail ?? String(cString: strerror(errno)) }

    /// A path that names a FIFO, a device or a folder where a file was meant: refused before a
    /// byte is read, since reading (or opening) a FIFO could wait for a writer for ever.
    public static func notRegularFile(_ path: String) -> SystemCallError {
        SystemCallError(call: "open", errno: EINVAL, subject: path, detail: notRegularFileText)
    }

    private static let notRegularFileText = "not a regular file (a FIFO, device or folder)"

    /// See ``notRegularFile(_:)``.
    public var isNotRegularFile: Bool { detail == Self.notRegularFileText }

    /// The `errno` of a read that went past its limit (`EFBIG`): see ``Posix/readFile(_:limit:)``.
    public static let fileTooLarge = EFBIG

    /// Nothing is at the path (`ENOENT`).
    public var isMissing: Bool { errno == ENOENT }

    /// The address is taken by another process (or another socket of this one).
    public var isAddressInUse: Bool { errno == EADDRINUSE }

    /// The peer reset the connection (`ECONNRESET`): for a reader, an abrupt end of stream.
    public var isConnectionReset: Bool { errno == ECONNRESET }
}

/// `errno` where a member of the same name would hide it.
private func currentErrno() -> Int32 { errno }
