import Clock
import JSON
import TLS

/// APNs token-based authentication: an ES256 provider JWT (header `alg`, `kid`; claims `iss`,
/// `iat`) sent as `authorization: bearer …` on every request.
///
/// APNs refuses tokens older than an hour (`ExpiredProviderToken`) and tokens replaced more
/// often than every 20 minutes (`TooManyProviderTokenUpdates`), so one token is reused and a
/// new one is made once it is ``refreshAfterSeconds`` old, inside that window.
///
/// ```swift
/// var token = try APNsProviderToken(keyFile: "AuthKey_ABC123DEFG.p8", keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// request.headers.add("authorization", try token.authorization(now: clock.now))
/// ```
public struct APNsProviderToken: Sendable {
    public static let refreshAfterSeconds: Int64 = 50 * 60
    public let key: PrivateKey
    public let keyID: String
    public let teamID: String
    private var cached: (value: String, issuedAt: Int64)?

    public init(key: PrivateKey, keyID: String, teamID: String) throws(TLSError) {
        guard key.kind == .ecP256 else {
            throw TLSError(
                "the APNs auth key is \(key.kind.label); APNs keys (.p8 from the developer account) are EC P-256"
            )
        }
        guard !keyID.isEmpty, !teamID.isEmpty else {
            throw TLSError("APNs token auth needs the key id and the team id")
        }
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
    }

    public init(keyFile: String, keyID: String, teamID: String) throws(TLSError) {
        try self.init(key: PrivateKey(file: keyFile, what: "--apns-auth-key file"), keyID: keyID, teamID: teamID)
    }

    /// `bearer <jwt>`: the cached token, or a new one when it is old enough to replace.
    public mutating func authorization(now: Instant) throws(TLSError) -> String {
        let seconds = now.millisecondsSinceEpoch / 1000
        if let cached, seconds - cached.issuedAt < Self.refreshAfterSeconds, seconds >= cached.issuedAt {
            return "bearer " + cached.value
        }
        let token = try JWT.sign(
            header: JSONObject([("alg", "ES256"), ("kid", .string(keyID))]),
            claims: JSONObject([("iss", .string(teamID)), ("iat", .number(Double(seconds)))]),
            key: key,
            algorithm: .es256
        )
        cached = (token, seconds)
        return "bearer " + token
    }
}
