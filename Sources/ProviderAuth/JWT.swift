import HTTP
import JSON
import TLS

/// Compact JWS tokens (RFC 7515/7519) as the push providers use them: signed with ``PrivateKey``,
/// read and checked with ``PublicKey``. The crypto is OpenSSL's; this only frames it.
///
/// ```swift
/// let token = try JWT.sign(header: ["alg": "ES256", "kid": "ABC123DEFG"], claims: ["iss": "TEAMID", "iat": 1_700_000_000],
///                          key: key, algorithm: .es256)
/// let parsed = try JWT(token)
/// parsed.verify(with: publicKey)   // true
/// ```
public struct JWT: Sendable {
    public let header: JSONObject
    public let claims: JSONObject
    let signingInput: [UInt8]
    let signature: [UInt8]

    public static func sign(
        header: JSONObject,
        claims: JSONObject,
        key: PrivateKey,
        algorithm: SignatureAlgorithm
    ) throws(TLSError) -> String {
        let input =
            Base64URL.encode(JSON.object(header).serialized()) + "."
            + Base64URL.encode(JSON.object(claims).serialized())
        let signature = try key.sign(Array(input.utf8), as: algorithm)
        return input + "." + Base64URL.encode(signature)
    }

    /// Splits and decodes a compact token; the error says which part is malformed.
    public init(_ token: String) throws(JWTError) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw JWTError("not a JWT: expected three dot-separated parts, found \(parts.count)")
        }
        func object(_ part: Substring, _ name: String) throws(JWTError) -> JSONObject {
            guard let bytes = Base64URL.decode(part, .strict), let json = try? JSON.parse(bytes),
                let object = json.objectValue
            else {
                throw JWTError("the JWT \(name) is not base64url-encoded JSON")
            }
            return object
        }
        header = try object(parts[0], "header")
        claims = try object(parts[1], "claims")
        guard let signature = Base64URL.decode(parts[2], .strict), !signature.isEmpty else {
            throw JWTError("the JWT signature is not base64url")
        }
        self.signature = signature
        signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    }

    /// The `alg` header, when it names an algorithm this code knows.
    public var algorithm: SignatureAlgorithm? { header["alg"]?.stringValue.flatMap(SignatureAlgorithm.init(rawValue:)) }

    /// True when the signature is valid for `key` under the token's own `alg` (which must be `expected`).
    public func verify(with key: PublicKey, expecting expected: SignatureAlgorithm) -> Bool {
        algorithm == expected && key.verify(signature, over: signingInput, as: expected)
    }

    /// An integer claim in seconds (`iat`, `exp`).
    public func seconds(_ claim: String) -> Int64? {
        guard let n = claims[claim]?.numberValue, n.rounded() == n, abs(n) < 1e15 else { return nil }
        return Int64(n)
    }
}

public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
