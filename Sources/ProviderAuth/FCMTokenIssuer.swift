import Clock
import HTTP
import JSON
import TLS

/// The stand-in's side of FCM HTTP v1 auth: the OAuth token endpoint at the service account's
/// `token_uri` path (checking assertions as Google does), and the check of `Authorization:
/// Bearer` on sends.
///
/// ```swift
/// var issuer = try FCMTokenIssuer(account: try ServiceAccount(file: "service-account.json"))
/// let answer = issuer.answer(tokenRequest, now: now)                     // 200 {"access_token": …}
/// issuer.isAuthorized(send.headers["authorization"], now: now)           // true
/// ```
public struct FCMTokenIssuer: Sendable {
    public static let lifetimeSeconds: Int64 = 3599
    public let account: ServiceAccount
    let publicKey: PublicKey
    private var issued: [String: Int64] = [:]
    private var counter = 0

    public init(account: ServiceAccount) throws(TLSError) {
        self.account = account
        self.publicKey = try account.privateKey.publicKey()
    }

    /// The token endpoint: 200 with a new access token for a valid JWT-bearer assertion, else
    /// OAuth's 400 `{"error", "error_description"}`.
    public mutating func answer(_ request: HTTPRequest, now: Instant) -> HTTPResponse {
        guard request.method == "POST" else { return Self.error(405, "invalid_request", "use POST") }
        var form: [String: String] = [:]
        for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let name = PercentDecoding.decode(String(parts[0]), plusIsSpace: true),
                let value = PercentDecoding.decode(String(parts[1]), plusIsSpace: true)
            else { continue }
            form[name] = value
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return Self.error(400, "unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")")
        }
        guard let assertion = form["assertion"], let jwt = try? JWT(assertion) else {
            return Self.error(400, "invalid_request", "Invalid JWT: missing or malformed assertion.")
        }
        guard jwt.verify(with: publicKey, expecting: .rs256) else {
            return Self.error(400, "invalid_grant", "Invalid JWT Signature.")
        }
        let seconds = now.millisecondsSinceEpoch / 1000
        guard jwt.claims["iss"]?.stringValue == account.clientEmail else {
            return Self.error(400, "invalid_grant", "Invalid JWT: iss is not \(account.clientEmail).")
        }
        guard jwt.claims["aud"]?.stringValue == account.tokenURI else {
            return Self.error(400, "invalid_grant", "Invalid JWT: aud must be the token_uri \(account.tokenURI).")
        }
        guard let scope = jwt.claims["scope"]?.stringValue,
            scope.split(separator: " ").contains(Substring(ServiceAccount.messagingScope))
        else {
            return Self.error(400, "invalid_scope", "The assertion does not ask for \(ServiceAccount.messagingScope).")
        }
        guard let issuedAt = jwt.seconds("iat"), let expires = jwt.seconds("exp"), issuedAt <= seconds + 60,
            expires > seconds, expires - issuedAt <= 3600
        else {
            return Self.error(
                400,
                "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
            )
        }
        issued = issued.filter { $0.value > seconds }
        counter += 1
        let token = "ya29.lerix-mock.\(counter).\(Base64URL.encode(Array(jwt.signaturePrefix)))"
        issued[token] = seconds + Self.lifetimeSeconds
        var response = HTTPResponse(
            status: 200,
            body: JSON.object(
                JSONObject([
                    ("access_token", .string(token)), ("expires_in", .number(Double(Self.lifetimeSeconds))),
                    ("token_type", "Bearer"),
                ])
            ).serialized()
        )
        response.headers.add("content-type", "application/json; charset=utf-8")
        return response
    }

    /// True when `authorization` is `Bearer <a token this issuer handed out and that has not expired>`.
    public func isAuthorized(_ authorization: String?, now: Instant) -> Bool {
        guard let authorization else { return false }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", let expires = issued[String(parts[1])] else {
            return false
        }
        return now.millisecondsSinceEpoch / 1000 < expires
    }

    static func error(_ status: Int, _ code: String, _ description: String) -> HTTPResponse {
        var response = HTTPResponse(
            status: status,
            body: JSON.object(
                JSONObject([
                    ("error", .string(code)), ("error_description", .string(description)),
                ])
            ).serialized()
        )
        response.headers.add("content-type", "application/json; charset=utf-8")
        return response
    }
}

extension JWT {
    /// A few signature bytes: makes issued tokens unguessable from the counter alone.
    var signaturePrefix: ArraySlice<UInt8> { signature.prefix(9) }
}
