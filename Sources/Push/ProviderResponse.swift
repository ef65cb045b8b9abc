import Clock
import HTTP
import JSON

/// Reads a provider's answer the way APNs and FCM document them.
///
/// ```swift
/// ProviderResponse.verdict(.apns, status: 410, headers: [:], body: Array(#"{"reason":"Unregistered"}"#.utf8), now: now)
/// // .unregistered(reason: "410 Unregistered")
/// ```
public enum ProviderResponse {
    public static func verdict(
        _ provider: PushProvider,
        status: Int,
        headers: HTTPHeaders,
        body: [UInt8],
        now: Instant
    ) -> AttemptVerdict {
        if (200..<300).contains(status) { return .delivered }
        let reason = describe(provider, status: status, body: body)
        switch provider {
        case .apns:
            if status == 410 { return .unregistered(reason: reason) }
        case .fcm:
            if status == 404, errorCode(body) == "UNREGISTERED" { return .unregistered(reason: reason) }
        }
        if status == 429 || status >= 500 {
            let after = headers["retry-after"].flatMap { RetryAfter.milliseconds($0, now: now) }
            return .retryable(reason: reason, retryAfterMilliseconds: after)
        }
        return .rejected(reason: reason)
    }

    /// `410 Unregistered` (APNs `reason`), `404 UNREGISTERED: Requested entity was not found.` (FCM
    /// `errorCode` and `message`), or just the status when the body says nothing readable.
    public static func describe(_ provider: PushProvider, status: Int, body: [UInt8]) -> String {
        let json = try? JSON.parse(body)
        switch provider {
        case .apns:
            if let reason = json?["reason"]?.stringValue, !reason.isEmpty { return "\(status) \(clip(reason))" }
        case .fcm:
            let error = json?["error"]
            let code = errorCode(body) ?? error?["status"]?.stringValue
            let message = error?["message"]?.stringValue
            switch (code, message) {
            case let (c?, m?) where !m.isEmpty: return "\(status) \(clip(c)): \(clip(m))"
            case let (c?, _): return "\(status) \(clip(c))"
            case let (nil, m?) where !m.isEmpty: return "\(status) \(clip(m))"
            default: break
            }
        }
        return "\(status) \(HTTPResponse.reasonPhrase(status))"
    }

    /// FCM's `error.details[].errorCode` of the `FcmError` detail.
    static func errorCode(_ body: [UInt8]) -> String? {
        guard let details = (try? JSON.parse(body))?["error"]?["details"]?.arrayValue else { return nil }
        for detail in details {
            if let code = detail["errorCode"]?.stringValue { return code }
        }
        return nil
    }

    /// Keeps recorded reasons short whatever a gateway sends.
    static func clip(_ text: String) -> String {
        text.utf8.count <= 200 ? text : String(text.prefix(200)) + "…"
    }
}
