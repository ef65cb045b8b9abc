import HTTP
import JSON
import TLS

/// A Google service-account key file (`service-account.json`), the credentials of FCM HTTP v1.
///
/// ```swift
/// let account = try ServiceAccount(file: "service-account.json")
/// account.tokenURI      // "https://oauth2.googleapis.com/token"
/// ```
public struct ServiceAccount: Sendable {
    public let clientEmail: String
    public let privateKeyID: String?
    public let privateKey: PrivateKey
    public let tokenURI: String
    public let projectID: String?

    /// The OAuth scope FCM sends need.
    public static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"

    public init(json bytes: [UInt8], source: String = "the service-account file") throws(TLSError) {
        guard let json = try? JSON.parse(bytes), let object = json.objectValue else {
            throw TLSError(
                "\(source) is not JSON (download it from the Firebase console: Project settings, Service accounts)"
            )
        }
        func field(_ name: String) throws(TLSError) -> String {
            guard let value = object[name]?.stringValue, !value.isEmpty else {
                throw TLSError("\(source) has no \"\(name)\" (is it a service-account key file?)")
            }
            return value
        }
        if let type = object["type"]?.stringValue, type != "service_account" {
            throw TLSError("\(source) is of type \"\(type)\", not \"service_account\"")
        }
        clientEmail = try field("client_email")
        tokenURI = try field("token_uri")
        privateKey = try PrivateKey(pem: Array(try field("private_key").utf8), source: "\(source) \"private_key\"")
        guard privateKey.kind == .rsa else {
            throw TLSError("\(source) \"private_key\" is \(privateKey.kind.label), not RSA")
        }
        privateKeyID = object["private_key_id"]?.stringValue
        projectID = object["project_id"]?.stringValue
    }

    public init(file path: String) throws(TLSError) {
        try self.init(
            json: try KeyFile.read(path, what: "--fcm-credentials file"),
            source: "--fcm-credentials file '\(path)'"
        )
    }

    /// The path of ``tokenURI`` ("/token"), where the stand-in serves the token endpoint.
    public var tokenPath: String {
        (try? HTTPURL(parsing: tokenURI))?.target ?? "/"
    }
}
