/// What one attempt at delivering to one token came to, before the retry policy weighs in.
public enum AttemptVerdict: Sendable, Equatable {
    case delivered
    /// The provider says the token is gone for good (APNs 410, FCM 404 `UNREGISTERED`).
    case unregistered(reason: String)
    /// Worth trying again: 429, 5xx, a timeout or a broken connection. `retryAfterMilliseconds`
    /// is the provider's `Retry-After`, when it sent one.
    case retryable(reason: String, retryAfterMilliseconds: Int64?)
    /// Trying again would get the same answer (4xx other than 410/404-unregistered/429).
    case rejected(reason: String)
}
