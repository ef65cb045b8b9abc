import Glibc

/// The CPU time the calling thread has used: what a piece of work costs, whatever else the
/// machine runs meanwhile. A cost bounded by wall time fails when the machine is loaded (the
/// thread waits for a core through no fault of the code); this counts only the time it ran.
///
/// ```swift
/// let (problems, cpu) = ThreadCPUTime.of { schema.problems(in: items, against: "list") }
/// #expect(cpu < .seconds(3))
/// ```
public enum ThreadCPUTime {
    public static var now: Duration {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return .seconds(t.tv_sec) + .nanoseconds(t.tv_nsec)
    }

    /// What `body` returns, and the CPU time it took on this thread (work it hands to other
    /// threads is not counted).
    public static func of<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
        let started = now
        let value = try body()
        return (value, now - started)
    }
}
