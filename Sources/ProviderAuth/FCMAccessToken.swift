import Clock
import HTTP
import JSON
import TLS

/// FCM HTTP v1 authentication, the OAuth 2.0 JWT-bearer grant (RFC 7523) for a service account:
/// an RS256 assertion (`iss` = client email, `scope` = firebase.messaging, `aud` = token_uri,
/// `iat`, `exp` an hour on) is POSTed to the file's `token_uri`; the access token that comes
/// back is sent as `Authorization: Bearer …` until shortly before it expires.
///
/// A value type: its owner sends ``tokenRequest(now:)`` and feeds the answer to ``received(status:body:now:)``.
///
/// ```swift
/// var auth = FCMAccessToken(account: try ServiceAccount(file: "service-account.json"))
/// if auth.authorization(now: now) == nil { send(try auth.tokenRequest(now: now)) }
/// ```
public struct FCMAccessToken: Sendable {
    /// Refresh this long before `expires_in` runs out, so no send carries a token about to lapse.
    public static let refreshMarginSeconds: Int64 = 5 * 60
    public let account: ServiceAccount
    private var token: (value: String, refreshAt: Int64)?

    public init(account: ServiceAccount) { self.account = account }

    /// `Bearer <access token>` while a token is fresh; nil when one must be fetched.
    public func authorization(now: Instant) -> String? {
        guard let token, now.millisecondsSinceEpoch / 1000 < token.refreshAt else { return nil }
        return "Bearer " + token.value
    }

    /// The token request: `POST token_uri` with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`.
    public func tokenRequest(now: Instant) throws(TLSError) -> HTTPRequest {
        let seconds = now.millisecondsSinceEpoch / 1000
        var header = JSONObject([("alg", "RS256"), ("typ", "JWT")])
        if let kid = account.privateKeyID { header["kid"] = .string(kid) }
        let claims = JSONObject([
            ("iss", .string(account.clientEmail)), ("scope", .string(ServiceAccount.messagingScope)),
            ("aud", .string(account.tokenURI)), ("iat", .number(Double(seconds))),
            ("exp", .number(Double(seconds + 3600))),
        ])
        let assertion = try JWT.sign(header: header, claims: claims, key: account.privateKey, algorithm: .rs256)
        // The assertion is base64url and dots only: nothing to percent-encode.
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        var headers = HTTPHeaders()
        headers.add("content-type", "application/x-www-form-urlencoded")
        return HTTPRequest(method: "POST", target: account.tokenPath, headers: headers, body: Array(body.utf8))
    }

    public enum TokenAnswer: Equatable, Sendable {
        case accepted
        /// The endpoint said no (a wrong key, a revoked account): every waiting send fails with this.
        case refused(String)
        /// Try again later (5xx, garbage).
        case unavailable(String)
    }

    /// Reads the token endpoint's answer: `{"access_token", "expires_in", "token_type": "Bearer"}`,
    /// or OAuth's `{"error", "error_description"}`.
    public mutating func received(status: Int, body: [UInt8], now: Instant) -> TokenAnswer {
        let json = try? JSON.parse(body)
        guard (200..<300).contains(status) else {
            let code = json?["error"]?.stringValue ?? HTTPResponse.reasonPhrase(status)
            let detail = json?["error_description"]?.stringValue.map { ": \($0)" } ?? ""
            let reason = "the token endpoint \(account.tokenURI) answered \(status) \(code)\(detail)"
            return status >= 500 || status == 429 ? .unavailable(reason) : .refused(reason)
        }
        guard let value = json?["access_token"]?.stringValue, !value.isEmpty,
            let lifetime = json?["expires_in"]?.intValue, lifetime > 0
        else {
            return .unavailable(
                "the token endpoint \(account.tokenURI) answered 200 without access_token and expires_in"
            )
        }
        let seconds = now.millisecondsSinceEpoch / 1000
        // Short-lived tokens are refreshed at half their life instead of being used to the margin.
        let margin = min(Self.refreshMarginSeconds, Int64(lifetime) / 2)
        token = (value, seconds + Int64(lifetime) - margin)
        return .accepted
    }

    /// Forgets the token (FCM answered 401 to it).
    public mutating func invalidate() { token = nil }
}
