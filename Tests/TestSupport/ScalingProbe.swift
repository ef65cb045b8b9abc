import Glibc

/// How a piece of work grows with its input, from this thread's CPU time rather than the
/// wall clock: other processes on a shared machine do not move it, so a test can tell
/// linear from quadratic without a flaky time limit.
///
/// ```swift
/// let growth = ScalingProbe.growth(small: { parse(1_000) }, large: { parse(16_000) })
/// #expect(growth < 64)   // 16× the input: ~16 when linear, ~256 when quadratic
/// ```
public enum ScalingProbe {
    /// CPU seconds this thread spent in `body`.
    public static func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        try body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    /// The large run's cost over the small one's, each the fastest of `repeats` runs.
    public static func growth(repeats: Int = 3, small: () throws -> Void, large: () throws -> Void) rethrows -> Double {
        var smallBest = Double.infinity
        var largeBest = Double.infinity
        for _ in 0..<repeats {
            smallBest = min(smallBest, try cpuSeconds(small))
            largeBest = min(largeBest, try cpuSeconds(large))
        }
        return largeBest / max(smallBest, 1e-6)
    }
}
