import HTTP
import JSON

/// An error answer in APNs's own form: a status and `{"reason": "…"}` (410 adds `timestamp`).
/// The mock may add `detail`, a sentence for people; APNs clients read only `reason`.
///
/// ```swift
/// APNsError(status: 400, reason: "BadPriority").response()
/// // 400 {"reason":"BadPriority"}
/// ```
public struct APNsError: Error, Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var detail: String?

    public init(status: Int, reason: String, detail: String? = nil) {
        self.status = status
        self.reason = reason
        self.detail = detail
    }

    /// APNs's documented reason for a status, for rejections given only a status.
    public static func defaultReason(status: Int) -> String {
        switch status {
        case 400: return "BadDeviceToken"
        case 403: return "Forbidden"
        case 404: return "BadPath"
        case 405: return "MethodNotAllowed"
        case 410: return "Unregistered"
        case 413: return "PayloadTooLarge"
        case 429: return "TooManyRequests"
        case 500: return "InternalServerError"
        case 503: return "ServiceUnavailable"
        default: return status >= 500 ? "InternalServerError" : "BadRequest"
        }
    }

    public func response(timestampMilliseconds: Int64? = nil, apnsID: String? = nil) -> HTTPResponse {
        var pairs: [(String, JSON)] = [("reason", .string(reason))]
        if status == 410, let timestampMilliseconds {
            pairs.append(("timestamp", .number(Double(timestampMilliseconds))))
        }
        if let detail { pairs.append(("detail", .string(detail))) }
        var response = HTTPResponse(status: status, body: JSON.object(pairs).serialized())
        response.headers.add("content-type", "application/json")
        if let apnsID { response.headers.add("apns-id", apnsID) }
        return response
    }
}
