import HTTP
import JSON

/// Builds the FCM HTTP v1 request for one silent (data-only, high priority) push, exactly as
/// CONTRACT "Push" fixes it.
///
/// ```swift
/// let request = FCMRequest.silentPush(token: "fcm-1", project: "demo")
/// request.target   // "/v1/projects/demo/messages:send"
/// String(decoding: request.body, as: UTF8.self)
/// // {"message":{"token":"fcm-1","data":{"lerix":"release_control"},"android":{"priority":"high"}}}
/// ```
public enum FCMRequest {
    static let bodyPrefix: [UInt8] = Array(#"{"message":{"token":"#.utf8)
    static let bodySuffix: [UInt8] = Array(#","data":{"lerix":"release_control"},"android":{"priority":"high"}}}"#.utf8)

    public static func silentPush(token: String, project: String, pathPrefix: String = "") -> HTTPRequest {
        HTTPRequest(
            method: "POST",
            target: pathPrefix + "/v1/projects/" + PathSegment.encode(project) + "/messages:send",
            version: .http2,
            headers: HTTPHeaders([("content-type", "application/json")]),
            body: body(token: token)
        )
    }

    /// The message body; the token is JSON-escaped, everything else is fixed bytes.
    public static func body(token: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bodyPrefix.count + bodySuffix.count + token.utf8.count + 2)
        out.append(contentsOf: bodyPrefix)
        JSON.writeString(token, into: &out)
        out.append(contentsOf: bodySuffix)
        return out
    }
}
