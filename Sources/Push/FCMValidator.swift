import HTTP
import JSON

/// An FCM v1 request the gateway accepted.
public struct FCMPush: Sendable, Equatable {
    public var project: String
    public var token: String
    public var data: [String: String]
    public var androidPriority: String?
}

/// Checks one `POST /v1/projects/<project>/messages:send` the way FCM's v1 API does, answering
/// in Google's error form.
///
/// Stricter than FCM in one place: a Lerix silent push must be data-only, so a `notification`
/// is refused. Messages to a `topic` or `condition` are refused too: the mock has no topics.
///
/// ```swift
/// if case .failure(let error) = FCMValidator.validate(request) { reply(error.response()) }
/// ```
public enum FCMValidator {
    public static let maxPayloadBytes = 4096
    static let messageFields: Set<String> = [
        "name", "data", "notification", "android", "webpush", "apns",
        "fcm_options", "fcmOptions", "token", "topic", "condition",
    ]
    static let reservedKeys: Set<String> = ["from", "message_type", "notification", "collapse_key"]
    /// The data of ``FCMRequest``'s message, made once.
    static let lerixData: [String: String] = ["lerix": "release_control"]

    public static func validate(_ request: HTTPRequest) -> Result<FCMPush, FCMError> {
        // Most targets are exactly /v1/projects/<project>/messages:send: read it without splitting the path.
        let project =
            RequestTarget.plainSegment(request.target, after: "/v1/projects/", before: "/messages:send")
            ?? RequestTarget.segments(request.target).flatMap { segments in
                segments.count == 4 && segments[0] == "v1" && segments[1] == "projects" && !segments[2].isEmpty
                    && segments[3] == "messages:send" ? segments[2] : nil
            }
        guard let project else {
            return .failure(
                FCMError(
                    code: 404,
                    status: "NOT_FOUND",
                    message: "Unknown path: FCM v1 sends to /v1/projects/<project>/messages:send",
                    errorCode: "UNSPECIFIED_ERROR"
                )
            )
        }
        guard request.method == "POST" else {
            return .failure(
                FCMError(
                    code: 405,
                    status: "INVALID_ARGUMENT",
                    message: "messages:send accepts POST only",
                    errorCode: "INVALID_ARGUMENT"
                )
            )
        }
        // Lerix's own message shape is known good: take the token without a full parse.
        if let token = canonicalToken(request.body) {
            return .success(FCMPush(project: project, token: token, data: lerixData, androidPriority: "high"))
        }
        guard request.body.count <= maxPayloadBytes + 1024 else {
            return .failure(
                .invalidArgument(
                    "Message is too big: \(request.body.count) bytes (data is limited to \(maxPayloadBytes))"
                )
            )
        }
        let body: JSON
        do {
            body = try JSON.parse(request.body)
        } catch {
            return .failure(.invalidArgument("Invalid JSON payload received. \(error.description)"))
        }
        guard let top = body.objectValue else {
            return .failure(.invalidArgument("Invalid JSON payload received. Expected an object at the top level."))
        }
        for key in top.keys where key != "message" && key != "validate_only" && key != "validateOnly" {
            return .failure(
                .invalidArgument("Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field.")
            )
        }
        guard let message = top["message"]?.objectValue else {
            return .failure(.invalidArgument("Invalid value at 'message': a message object is required."))
        }
        for key in message.keys where !messageFields.contains(key) {
            return .failure(
                .invalidArgument(
                    "Invalid JSON payload received. Unknown name \"\(key)\" at 'message': Cannot find field."
                )
            )
        }
        if message["topic"] != nil || message["condition"] != nil {
            return .failure(
                .invalidArgument("The mock gateway delivers to tokens only: remove message.topic / message.condition.")
            )
        }
        guard let tokenValue = message["token"] else {
            return .failure(
                .invalidArgument("Invalid value at 'message': one of token, topic or condition is required.")
            )
        }
        guard let token = tokenValue.stringValue, !token.isEmpty, token.utf8.count <= 4096 else {
            return .failure(.invalidArgument("The registration token is not a valid FCM registration token"))
        }
        if message["notification"] != nil {
            return .failure(
                .invalidArgument(
                    "Invalid value at 'message.notification': a silent push is data-only; remove notification."
                )
            )
        }
        var data: [String: String] = [:]
        var dataBytes = 0
        if let dataValue = message["data"] {
            guard let object = dataValue.objectValue else {
                return .failure(
                    .invalidArgument(
                        "Invalid value at 'message.data' (type.googleapis.com/google.protobuf.Struct): expected an object of strings."
                    )
                )
            }
            for (index, pair) in object.pairs.enumerated() {
                guard let value = pair.value.stringValue else {
                    return .failure(
                        .invalidArgument(
                            "Invalid value at 'message.data[\(index)].value' (TYPE_STRING), \(pair.value.serializedString)"
                        )
                    )
                }
                if reservedKeys.contains(pair.key) || pair.key.hasPrefix("google.") || pair.key.hasPrefix("gcm.") {
                    return .failure(
                        .invalidArgument(
                            "Invalid data payload key: \"\(pair.key)\" is reserved (from, message_type and keys starting with google. or gcm. are)."
                        )
                    )
                }
                data[pair.key] = value
                dataBytes += pair.key.utf8.count + value.utf8.count
            }
        }
        guard dataBytes <= maxPayloadBytes else {
            return .failure(
                .invalidArgument("Android message is too big: data is \(dataBytes) bytes, at most \(maxPayloadBytes).")
            )
        }
        var priority: String?
        if let android = message["android"] {
            guard let object = android.objectValue else {
                return .failure(.invalidArgument("Invalid value at 'message.android': expected an object."))
            }
            if let p = object["priority"] {
                guard let text = p.stringValue, ["high", "normal", "HIGH", "NORMAL"].contains(text) else {
                    return .failure(
                        .invalidArgument(
                            "Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), \(p.serializedString)"
                        )
                    )
                }
                priority = text.lowercased()
            }
            if let n = object["notification"], !n.isNull {
                return .failure(
                    .invalidArgument(
                        "Invalid value at 'message.android.notification': a silent push is data-only; remove notification."
                    )
                )
            }
        }
        return .success(FCMPush(project: project, token: token, data: data, androidPriority: priority))
    }

    /// The token of a body that is byte for byte ``FCMRequest/body(token:)`` with a token that
    /// needs no escaping; nil for anything else (which then gets the full check).
    static func canonicalToken(_ body: [UInt8]) -> String? {
        let prefix = FCMRequest.bodyPrefix
        let suffix = FCMRequest.bodySuffix
        let fixed = prefix.count + suffix.count + 2
        guard body.count > fixed, body.count <= fixed + 4096 else { return nil }
        return body.withUnsafeBufferPointer { b -> String? in
            guard b.starts(with: prefix), b[prefix.count] == UInt8(ascii: "\""),
                b[(b.count - suffix.count)...].elementsEqual(suffix),
                b[b.count - suffix.count - 1] == UInt8(ascii: "\"")
            else { return nil }
            let token = b[(prefix.count + 1)..<(b.count - suffix.count - 1)]
            for c in token where c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { return nil }
            return String(validating: token, as: UTF8.self)
        }
    }
}
