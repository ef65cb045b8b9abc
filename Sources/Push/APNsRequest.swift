import HTTP

/// Builds the APNs request for one silent push, exactly as CONTRACT "Push" fixes it.
///
/// ```swift
/// let request = APNsRequest.silentPush(token: "a1b2…", topic: "dev.lerix.demo")
/// request.target                     // "/3/device/a1b2…"
/// request.headers["apns-priority"]   // "5"
/// ```
public enum APNsRequest {
    /// The payload: wakes the app in the background and says why.
    public static let body: [UInt8] = Array(#"{"aps":{"content-available":1},"lerix":{"kind":"release_control"}}"#.utf8)

    /// `POST /3/device/{token}` with the background push headers. The token is
    /// percent-encoded when it holds anything but unreserved characters (hex tokens never do).
    public static func silentPush(token: String, topic: String, pathPrefix: String = "") -> HTTPRequest {
        HTTPRequest(
            method: "POST",
            target: pathPrefix + "/3/device/" + PathSegment.encode(token),
            version: .http2,
            headers: HTTPHeaders([
                ("apns-push-type", "background"),
                ("apns-priority", "5"),
                ("apns-topic", topic),
            ]),
            body: body
        )
    }
}
