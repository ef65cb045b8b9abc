import HTTP
import JSON

/// An error answer in Google's form for the FCM v1 API:
/// `{"error":{"code":404,"message":"…","status":"NOT_FOUND","details":[{"@type":
/// "type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}`.
///
/// ```swift
/// FCMError.unregistered.response()   // 404 … "errorCode":"UNREGISTERED" …
/// ```
public struct FCMError: Error, Sendable, Equatable {
    public var code: Int
    public var status: String
    public var message: String
    public var errorCode: String

    public init(code: Int, status: String, message: String, errorCode: String) {
        self.code = code
        self.status = status
        self.message = message
        self.errorCode = errorCode
    }

    public static let unregistered = FCMError(
        code: 404,
        status: "NOT_FOUND",
        message: "Requested entity was not found.",
        errorCode: "UNREGISTERED"
    )

    public static func invalidArgument(_ message: String) -> FCMError {
        FCMError(code: 400, status: "INVALID_ARGUMENT", message: message, errorCode: "INVALID_ARGUMENT")
    }

    /// Google's status and FCM error code for an HTTP status, for rejections given only a status.
    public static func forStatus(_ code: Int, message: String? = nil) -> FCMError {
        switch code {
        case 400: return invalidArgument(message ?? "Request contains an invalid argument.")
        case 401:
            return FCMError(
                code: 401,
                status: "UNAUTHENTICATED",
                message: message ?? "Request had invalid authentication credentials.",
                errorCode: "THIRD_PARTY_AUTH_ERROR"
            )
        case 403:
            return FCMError(
                code: 403,
                status: "PERMISSION_DENIED",
                message: message ?? "SenderId mismatch",
                errorCode: "SENDER_ID_MISMATCH"
            )
        case 404:
            return message.map { FCMError(code: 404, status: "NOT_FOUND", message: $0, errorCode: "UNREGISTERED") }
                ?? unregistered
        case 429:
            return FCMError(
                code: 429,
                status: "RESOURCE_EXHAUSTED",
                message: message ?? "Quota exceeded for sending messages.",
                errorCode: "QUOTA_EXCEEDED"
            )
        case 503:
            return FCMError(
                code: 503,
                status: "UNAVAILABLE",
                message: message ?? "The service is currently unavailable.",
                errorCode: "UNAVAILABLE"
            )
        default:
            if code >= 500 {
                return FCMError(
                    code: code,
                    status: "INTERNAL",
                    message: message ?? "Internal error encountered.",
                    errorCode: "INTERNAL"
                )
            }
            return FCMError(
                code: code,
                status: "FAILED_PRECONDITION",
                message: message ?? "Request was rejected.",
                errorCode: "UNSPECIFIED_ERROR"
            )
        }
    }

    /// A send without a valid OAuth access token, as Google answers it (no FcmError detail).
    public static let unauthenticated = FCMError(
        code: 401,
        status: "UNAUTHENTICATED",
        message:
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
        errorCode: ""
    )

    public var json: JSON {
        var error = JSONObject([
            ("code", .number(Double(code))), ("message", .string(message)), ("status", .string(status)),
        ])
        if !errorCode.isEmpty {
            error["details"] = .array([
                .object([
                    ("@type", "type.googleapis.com/google.firebase.fcm.v1.FcmError"),
                    ("errorCode", .string(errorCode)),
                ])
            ])
        }
        return .object([("error", .object(error))])
    }

    public func response() -> HTTPResponse {
        var response = HTTPResponse(status: code, body: json.serialized())
        response.headers.add("content-type", "application/json; charset=UTF-8")
        return response
    }
}
