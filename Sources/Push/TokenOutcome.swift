/// What became of one token's push, with the reason a person needs to act on it.
///
/// `unregistered` means the provider said the token is gone (APNs 410, FCM 404
/// `UNREGISTERED`): the owner of the token list removes it.
public enum TokenOutcome: Sendable, Equatable, CustomStringConvertible {
    case delivered
    case failed(reason: String)
    case unregistered(reason: String)

    public var description: String {
        switch self {
        case .delivered: return "delivered"
        case .failed(let reason): return "failed: \(reason)"
        case .unregistered(let reason): return "unregistered: \(reason)"
        }
    }
}
