/// How hard to try one token: bounded attempts, exponential backoff, and how long a
/// provider's `Retry-After` may hold us before we give up instead of waiting.
///
/// ```swift
/// let policy = RetryPolicy(maxAttempts: 4, initialBackoffMilliseconds: 100)
/// policy.backoff(afterAttempt: 1)   // 100
/// policy.backoff(afterAttempt: 3)   // 400
/// ```
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts per token, the first included.
    public var maxAttempts: Int
    public var initialBackoffMilliseconds: Int64
    public var maxBackoffMilliseconds: Int64
    /// A `Retry-After` longer than this gives up at once: a push is only worth its freshness.
    public var maxRetryAfterMilliseconds: Int64

    public init(
        maxAttempts: Int = 4,
        initialBackoffMilliseconds: Int64 = 100,
        maxBackoffMilliseconds: Int64 = 5_000,
        maxRetryAfterMilliseconds: Int64 = 30_000
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoffMilliseconds = max(0, initialBackoffMilliseconds)
        self.maxBackoffMilliseconds = max(self.initialBackoffMilliseconds, maxBackoffMilliseconds)
        self.maxRetryAfterMilliseconds = max(0, maxRetryAfterMilliseconds)
    }

    /// The wait after attempt `attempt` (1-based) failed: initial × 2^(attempt-1), capped.
    public func backoff(afterAttempt attempt: Int) -> Int64 {
        let shift = min(max(0, attempt - 1), 30)
        let value = initialBackoffMilliseconds.multipliedReportingOverflow(by: Int64(1) << Int64(shift))
        return value.overflow ? maxBackoffMilliseconds : min(value.partialValue, maxBackoffMilliseconds)
    }
}
