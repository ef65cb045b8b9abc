import Clock
import Synchronization
import TLS

/// What the APNs stand-in does with `authorization` when it was given the provider's public key:
/// the reasons APNs answers with 403.
///
/// ```swift
/// let check = APNsTokenCheck(publicKey: try PublicKey(file: "AuthKey.pub.pem"))
/// check.problem(authorization: request.headers["authorization"], now: clock.now)   // nil, or "InvalidProviderToken"
/// ```
public struct APNsTokenCheck: Sendable {
    /// APNs: a token older than an hour is expired.
    public static let maximumAgeSeconds: Int64 = 60 * 60
    public let publicKey: PublicKey
    /// The last token whose signature checked out, and when it was issued: a sender reuses one
    /// token for many minutes (APNs asks it to), so a fan-out's 100k requests verify one
    /// signature, not 100k. The time checks still run on every request.
    private let lastVerified = VerifiedToken()

    public init(publicKey: PublicKey) throws(TLSError) {
        guard publicKey.kind == .ecP256 else {
            throw TLSError("the APNs auth public key is \(publicKey.kind.label); APNs keys are EC P-256")
        }
        self.publicKey = publicKey
    }

    /// nil for a valid token, else APNs's reason: `MissingProviderToken`, `InvalidProviderToken`
    /// (malformed, wrong alg, no kid or iss, bad signature, issued in the future) or `ExpiredProviderToken`.
    public func problem(authorization: String?, now: Instant) -> String? {
        guard let authorization, !authorization.isEmpty else { return "MissingProviderToken" }
        guard let issuedAt = lastVerified.issuedAt(of: authorization) ?? verifiedIssuedAt(authorization) else {
            return "InvalidProviderToken"
        }
        let seconds = now.millisecondsSinceEpoch / 1000
        // A little clock skew is tolerated, as APNs does.
        if issuedAt > seconds + 60 { return "InvalidProviderToken" }
        if seconds - issuedAt > Self.maximumAgeSeconds { return "ExpiredProviderToken" }
        return nil
    }

    /// The token's `iat` when it is well formed and signed by the key (remembered), else nil.
    private func verifiedIssuedAt(_ authorization: String) -> Int64? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", let jwt = try? JWT(String(parts[1])),
            jwt.header["kid"]?.stringValue?.isEmpty == false, jwt.claims["iss"]?.stringValue?.isEmpty == false,
            let issuedAt = jwt.seconds("iat"), jwt.verify(with: publicKey, expecting: .es256)
        else {
            return nil
        }
        lastVerified.remember(authorization, issuedAt: issuedAt)
        return issuedAt
    }
}

/// One verified token and its `iat`, shared by the threads answering requests.
private final class VerifiedToken: Sendable {
    private let last = Mutex<(authorization: String, issuedAt: Int64)?>(nil)

    func issuedAt(of authorization: String) -> Int64? {
        last.withLock { $0?.authorization == authorization ? $0?.issuedAt : nil }
    }

    func remember(_ authorization: String, issuedAt: Int64) {
        last.withLock { $0 = (authorization, issuedAt) }
    }
}
