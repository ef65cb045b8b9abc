#if canImport(Glibc)
import CSockets
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Posix {
    /// A child started by ``spawnShell(_:)``: its id (also its process group's) and the
    /// parent's ends of its standard pipes.
    public struct Child: Sendable {
        public var pid: Int32
        /// Write end of the child's stdin.
        public var input: Int32
        /// Read end of the child's stdout.
        public var output: Int32
        /// Read end of the child's stderr.
        public var errors: Int32
    }

    /// How a child ended.
    public enum Exit: Sendable, Equatable, CustomStringConvertible {
        case status(Int32)
        case signal(Int32)
        /// It cannot be waited for: reaped before, or not a child of this process.
        case unknown

        public var description: String {
            switch self {
            case .status(let code): "it exited with status \(code)"
            case .signal(let number): "it was ended by signal \(number)"
            case .unknown: "how it ended is not known"
            }
        }
    }

    /// Runs `/bin/sh -c command` in a process group of its own (so it can be stopped with
    /// whatever it starts), its stdin, stdout and stderr on new pipes. A child that closes
    /// its stdin cannot raise `SIGPIPE` in this process: that signal is ignored from now on.
    ///
    /// The pipes are close-on-exec, so a child gets its own three and no other: children
    /// started side by side (`scenarios --jobs`) each inherited the others' ends, and one whose
    /// stdin was closed saw no end of input while a sibling held a copy of its write end.
    public static func spawnShell(_ command: String) throws(SystemCallError) -> Child {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        var errChild: [Int32] = [-1, -1]
        guard closeOnExecPipe(&toChild) == 0 else { throw SystemCallError.last("pipe2") }
        guard closeOnExecPipe(&fromChild) == 0 else {
            let error = SystemCallError.last("pipe2")
            for fd in toChild { close(fd) }
            throw error
        }
        guard closeOnExecPipe(&errChild) == 0 else {
            let error = SystemCallError.last("pipe2")
            for fd in toChild + fromChild { close(fd) }
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errChild[1], 2)
        // The dup2'd copies are not close-on-exec; the pipes' own descriptors close at exec.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var child: pid_t = 0
        let argv: [String] = ["/bin/sh", "-c", command]
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        let status = posix_spawn(&child, "/bin/sh", &actions, &attributes, &cArgs, environ)
        for fd in [toChild[0], fromChild[1], errChild[1]] { close(fd) }
        guard status == 0 else {
            for fd in [toChild[1], fromChild[0], errChild[0]] { close(fd) }
            throw SystemCallError(call: "posix_spawn", errno: status, subject: "/bin/sh")
        }
        ignoreBrokenPipes()
        return Child(pid: child, input: toChild[1], output: fromChild[0], errors: errChild[0])
    }

    /// `pipe` with both ends close-on-exec (set atomically where the system can) and above
    /// 2: a pipe end that took a closed standard descriptor's number would be dup2'd onto
    /// itself, stay close-on-exec and be closed in the child.
    private static func closeOnExecPipe(_ fds: inout [Int32]) -> Int32 {
        #if canImport(Glibc)
        guard pipe2(&fds, O_CLOEXEC) == 0 else { return -1 }
        #else
        guard pipe(&fds) == 0 else { return -1 }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #endif
        for i in fds.indices where fds[i] <= 2 {
            let moved = fcntl(fds[i], F_DUPFD_CLOEXEC, 3)
            guard moved >= 0 else {
                let saved = errno
                for fd in fds { close(fd) }
                errno = saved
                return -1
            }
            close(fds[i])
            fds[i] = moved
        }
        return 0
    }

    /// Reaps `pid` if it has ended (never waits): how it ended, or nil while it runs.
    public static func reap(_ pid: Int32) -> Exit? {
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signalled = status & 0x7f
                return signalled == 0 ? .status((status >> 8) & 0xff) : .signal(signalled)
            }
            if result < 0 && errno == EINTR { continue }
            return result < 0 ? .unknown : nil
        }
    }

    /// Sends `SIGKILL` to the whole process group `group` (a ``spawnShell(_:)`` child's pid).
    public static func killGroup(_ group: Int32) {
        _ = kill(-group, SIGKILL)
    }

    /// Writing to a pipe or socket whose reader left fails with `EPIPE` instead of killing
    /// this process.
    public static func ignoreBrokenPipes() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// The signals that ask a server to stop (`SIGTERM`, `SIGINT`).
    public static let stopSignals: [Int32] = [SIGTERM, SIGINT]

    /// Turns off the default action of `signalNumber`, for a Dispatch signal source to take it.
    public static func ignore(signal signalNumber: Int32) {
        _ = signal(signalNumber, SIG_IGN)
    }

    /// Ends this process with `status`.
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    /// This process's id.
    public static var processID: Int32 { getpid() }

    /// This machine's host name, or nil.
    public static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, 255) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
