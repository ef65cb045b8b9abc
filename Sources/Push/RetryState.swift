import Clock

/// One token's delivery, across attempts: a state machine that turns each attempt's
/// verdict into "done with this outcome" or "try again at this instant".
///
/// ```swift
/// var state = RetryState()
/// state.attemptStarted()
/// switch state.attemptFinished(.retryable(reason: "503 ServiceUnavailable", retryAfterMilliseconds: nil),
///                              policy: RetryPolicy(), now: now) {
/// case .retry(let at): schedule(at)            // now + 100 ms
/// case .finish(let outcome): record(outcome)
/// }
/// ```
public struct RetryState: Sendable, Equatable {
    public enum Decision: Sendable, Equatable {
        case finish(TokenOutcome)
        case retry(at: Instant)
    }

    /// Attempts started so far.
    public private(set) var attempts: Int = 0

    public init() {}

    public mutating func attemptStarted() { attempts += 1 }

    public mutating func attemptFinished(_ verdict: AttemptVerdict, policy: RetryPolicy, now: Instant) -> Decision {
        switch verdict {
        case .delivered:
            return .finish(.delivered)
        case .unregistered(let reason):
            return .finish(.unregistered(reason: reason))
        case .rejected(let reason):
            return .finish(.failed(reason: reason))
        case .retryable(let reason, let retryAfter):
            let tried = max(attempts, 1)
            if tried >= policy.maxAttempts {
                return .finish(.failed(reason: "\(reason) (gave up after \(tried) attempt\(tried == 1 ? "" : "s"))"))
            }
            if let retryAfter {
                if retryAfter > policy.maxRetryAfterMilliseconds {
                    return .finish(
                        .failed(
                            reason:
                                "\(reason) (Retry-After \(retryAfter / 1000) s is beyond the \(policy.maxRetryAfterMilliseconds / 1000) s limit)"
                        )
                    )
                }
                return .retry(at: now.adding(milliseconds: retryAfter))
            }
            return .retry(at: now.adding(milliseconds: policy.backoff(afterAttempt: tried)))
        }
    }
}
