#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which call, on what, and the `errno` it left, with its text.
public struct SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call, e.g. "bind".
    public var call: String
    public var errno: Int32
    /// What the call was about, e.g. "127.0.0.1:8080"; may be empty.
    public var subject: String

    public init(call: String, errno: Int32, subject: String = "") {
        self.call = call
        self.errno = errno
        self.subject = subject
    }

    public var description: String {
        subject.isEmpty ? "\(call) failed: \(reason)" : "\(call) \(subject) failed: \(reason)"
    }

    /// The `errno` text alone ("Connection refused").
    public var reason: String { String(cString: strerror(errno)) }

    /// The address is taken by another process (or another socket of this one).
    public var isAddressInUse: Bool { errno == EADDRINUSE }

    /// The peer reset the connection (`ECONNRESET`): for a reader, an abrupt end of stream.
    public var isConnectionReset: Bool { errno == ECONNRESET }
}
