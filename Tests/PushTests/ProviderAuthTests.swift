import Clock
import HTTP
import JSON
import ProviderAuth
import TLS
import Testing

/// Provider tokens as the providers define them, and the stand-in's checks of them.
@Suite struct ProviderAuthTests {
    let start = Instant(secondsSinceEpoch: 1_800_000_000)

    @Test func apnsTokensCarryAlgKidIssIatAndAreReusedUntilTheRefreshWindow() throws {
        let key = try PrivateKey.generateP256()
        var token = try APNsProviderToken(key: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let first = try token.authorization(now: start)
        #expect(first.hasPrefix("bearer "))
        let jwt = try JWT(String(first.dropFirst("bearer ".count)))
        #expect(jwt.header["alg"] == "ES256" && jwt.header["kid"] == "ABC123DEFG")
        #expect(jwt.claims["iss"] == "DEF123GHIJ" && jwt.seconds("iat") == 1_800_000_000)
        #expect(jwt.verify(with: try key.publicKey(), expecting: .es256))
        // Reused inside 50 minutes (APNs throttles refreshes under 20), new after.
        #expect(try token.authorization(now: start.adding(seconds: 49 * 60)) == first)
        let second = try token.authorization(now: start.adding(seconds: 50 * 60))
        #expect(second != first)
        #expect(try JWT(String(second.dropFirst(7))).seconds("iat") == 1_800_003_000)
    }

    /// A compact JWS has unpadded base64url segments (RFC 7515 §2, 7.1): padding, the standard
    /// alphabet or white space in a segment makes it no JWT (it was once let through).
    @Test func aJWTSegmentWithPaddingOrTheStandardAlphabetIsRefused() throws {
        let key = try PrivateKey.generateP256()
        let token = try JWT.sign(
            header: JSONObject([("alg", "ES256")]),
            claims: JSONObject([("iss", "T")]),
            key: key,
            algorithm: .es256
        )
        let parts = token.split(separator: ".").map(String.init)
        #expect(try JWT(token).verify(with: try key.publicKey(), expecting: .es256))
        func refusal(_ text: String) -> String? {
            do {
                _ = try JWT(text)
                return nil
            } catch { return error.message }
        }
        let header = "the JWT header is not base64url-encoded JSON"
        #expect(refusal(parts[0] + "=." + parts[1] + "." + parts[2]) == header)
        #expect(refusal(parts[0] + " ." + parts[1] + "." + parts[2]) == header)
        #expect(refusal(parts[0] + "." + parts[1] + "==." + parts[2]) == "the JWT claims is not base64url-encoded JSON")
        #expect(refusal(parts[0] + "." + parts[1] + "." + parts[2] + "=") == "the JWT signature is not base64url")
        #expect(refusal(parts[0] + "." + parts[1] + ".ab+c") == "the JWT signature is not base64url")
        #expect(refusal(parts[0] + "." + parts[1] + ".ab_c") == nil, "the URL-safe alphabet is read")
    }

    @Test func theAPNsCheckAnswersWithAPNsReasons() throws {
        let key = try PrivateKey.generateP256()
        let check = try APNsTokenCheck(publicKey: key.publicKey())
        var token = try APNsProviderToken(key: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let good = try token.authorization(now: start)
        #expect(check.problem(authorization: good, now: start.adding(seconds: 59 * 60)) == nil)
        #expect(check.problem(authorization: good, now: start.adding(seconds: 61 * 60)) == "ExpiredProviderToken")
        #expect(check.problem(authorization: nil, now: start) == "MissingProviderToken")
        #expect(check.problem(authorization: "bearer nonsense", now: start) == "InvalidProviderToken")
        var other = try APNsProviderToken(key: try PrivateKey.generateP256(), keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        #expect(check.problem(authorization: try other.authorization(now: start), now: start) == "InvalidProviderToken")
        #expect(check.problem(authorization: good, now: start.adding(seconds: -3600)) == "InvalidProviderToken")
        #expect(throws: TLSError.self) {
            try APNsProviderToken(key: try PrivateKey.generateRSA(), keyID: "K", teamID: "T")
        }
    }

    func account(_ key: PrivateKey) throws -> ServiceAccount {
        try ServiceAccount(
            json: JSON.object(
                JSONObject([
                    ("type", "service_account"), ("private_key_id", "k1"),
                    ("private_key", .string(String(decoding: try key.pem(), as: UTF8.self))),
                    ("client_email", "push@demo.iam.gserviceaccount.com"),
                    ("token_uri", "https://oauth2.googleapis.com/token"),
                ])
            ).serialized()
        )
    }

    @Test func fcmTokensComeFromAnAssertionTheIssuerChecksAndAreCachedUntilShortlyBeforeExpiry() throws {
        let account = try account(try PrivateKey.generateRSA())
        #expect(account.tokenPath == "/token")
        var auth = FCMAccessToken(account: account)
        var issuer = try FCMTokenIssuer(account: account)
        #expect(auth.authorization(now: start) == nil)
        let request = try auth.tokenRequest(now: start)
        #expect(request.method == "POST" && request.target == "/token")
        #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
        let answer = issuer.answer(request, now: start)
        #expect(answer.status == 200)
        #expect(auth.received(status: answer.status, body: answer.body, now: start) == .accepted)
        let bearer = try #require(auth.authorization(now: start))
        #expect(issuer.isAuthorized(bearer, now: start))
        #expect(!issuer.isAuthorized("Bearer ya29.made-up", now: start))
        #expect(!issuer.isAuthorized(bearer, now: start.adding(seconds: 3600)))
        // Used until five minutes before it expires, then fetched again.
        #expect(auth.authorization(now: start.adding(seconds: 3599 - 301)) == bearer)
        #expect(auth.authorization(now: start.adding(seconds: 3599 - 300)) == nil)
    }

    @Test func theTokenEndpointRefusesWrongKeysStaleAssertionsAndOtherGrants() throws {
        let right = try account(try PrivateKey.generateRSA())
        let wrong = try account(try PrivateKey.generateRSA())
        var issuer = try FCMTokenIssuer(account: right)
        let forged = issuer.answer(try FCMAccessToken(account: wrong).tokenRequest(now: start), now: start)
        #expect(forged.status == 400)
        #expect(try JSON.parse(forged.body)["error_description"] == "Invalid JWT Signature.")
        var auth = FCMAccessToken(account: right)
        #expect(
            auth.received(status: forged.status, body: forged.body, now: start)
                == .refused(
                    "the token endpoint https://oauth2.googleapis.com/token answered 400 invalid_grant: Invalid JWT Signature."
                )
        )
        let stale = issuer.answer(try auth.tokenRequest(now: start), now: start.adding(seconds: 7200))
        #expect(try JSON.parse(stale.body)["error"] == "invalid_grant")
        let password = issuer.answer(
            HTTPRequest(method: "POST", target: "/token", body: Array("grant_type=password".utf8)),
            now: start
        )
        #expect(try JSON.parse(password.body)["error"] == "unsupported_grant_type")
    }

    @Test func serviceAccountMistakesNameTheField() {
        do {
            _ = try ServiceAccount(json: Array(#"{"type":"service_account","client_email":"a@b"}"#.utf8))
            Issue.record("accepted a file without token_uri")
        } catch {
            #expect(
                error.message == "the service-account file has no \"token_uri\" (is it a service-account key file?)"
            )
        }
    }
}
