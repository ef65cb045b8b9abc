import HTTP
import JSON

/// An APNs request the gateway accepted.
public struct APNsPush: Sendable, Equatable {
    public var token: String
    public var topic: String
    public var pushType: String
    public var priority: Int
    public var payload: [UInt8]
    public var apnsID: String?
}

/// Checks one `POST /3/device/<token>` the way APNs does, answering with APNs's reasons.
///
/// Stricter than APNs in two places, so sender mistakes show up in tests: `apns-push-type`
/// is required (APNs infers `alert`), and a background push whose payload lacks
/// `aps.content-available: 1` is refused (`BadPayload`; APNs would accept it and never wake the app).
///
/// ```swift
/// switch APNsValidator.validate(request) {
/// case .success(let push): print(push.token)
/// case .failure(let error): reply(error.response())   // e.g. 400 {"reason":"BadPriority"}
/// }
/// ```
public enum APNsValidator {
    public static let maxPayloadBytes = 4096
    static let pushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication",
        "fileprovider", "mdm", "liveactivity", "pushtotalk", "widgets",
    ]

    /// The `apns-*` headers, read in one pass over the fields.
    struct Headers {
        var topic: String?
        var pushType: String?
        var priority: String?
        var expiration: String?
        var collapseID: String?
        var apnsID: String?
        var duplicate: String?

        init(_ headers: HTTPHeaders) {
            for field in headers.fields {
                let name = field.name.utf8
                guard name.count >= 7, name.count <= 16, let first = name.first, first == 0x61 || first == 0x41 else {
                    continue
                }
                func set(_ slot: inout String?, _ label: String) {
                    if slot != nil { duplicate = duplicate ?? label }
                    slot = field.value
                }
                if HTTPHeaders.namesEqual(field.name, "apns-topic") {
                    set(&topic, "apns-topic")
                } else if HTTPHeaders.namesEqual(field.name, "apns-push-type") {
                    set(&pushType, "apns-push-type")
                } else if HTTPHeaders.namesEqual(field.name, "apns-priority") {
                    set(&priority, "apns-priority")
                } else if HTTPHeaders.namesEqual(field.name, "apns-expiration") {
                    set(&expiration, "apns-expiration")
                } else if HTTPHeaders.namesEqual(field.name, "apns-collapse-id") {
                    set(&collapseID, "apns-collapse-id")
                } else if HTTPHeaders.namesEqual(field.name, "apns-id") {
                    set(&apnsID, "apns-id")
                }
            }
        }
    }

    public static func validate(_ request: HTTPRequest) -> Result<APNsPush, APNsError> {
        // Most targets are exactly /3/device/<token>: read the token without splitting the path.
        let plain = RequestTarget.plainSegment(request.target, after: "/3/device/")
        let segments = plain == nil ? RequestTarget.segments(request.target) : nil
        if plain == nil {
            guard let segments, segments.count >= 2, segments[0] == "3", segments[1] == "device" else {
                return .failure(
                    APNsError(status: 404, reason: "BadPath", detail: "APNs requests go to /3/device/<token>")
                )
            }
        }
        guard request.method == "POST" else {
            return .failure(APNsError(status: 405, reason: "MethodNotAllowed", detail: "APNs accepts POST only"))
        }
        guard let token = plain ?? segments.flatMap({ $0.count == 3 && !$0[2].isEmpty ? $0[2] : nil }) else {
            return .failure(
                APNsError(status: 400, reason: "MissingDeviceToken", detail: "the path must end with the device token")
            )
        }
        guard isDeviceToken(token) else {
            return .failure(
                APNsError(
                    status: 400,
                    reason: "BadDeviceToken",
                    detail: "a device token is an even number (16 to 200) of hex digits"
                )
            )
        }
        let headers = Headers(request.headers)
        if let name = headers.duplicate {
            return .failure(
                APNsError(status: 400, reason: "DuplicateHeaders", detail: "\(name) appears more than once")
            )
        }
        guard let topic = headers.topic, !topic.isEmpty else {
            return .failure(
                APNsError(status: 400, reason: "MissingTopic", detail: "apns-topic (the app's bundle id) is required")
            )
        }
        guard let pushType = headers.pushType, pushType == "background" || pushTypes.contains(pushType) else {
            return .failure(
                APNsError(
                    status: 400,
                    reason: "InvalidPushType",
                    detail: "apns-push-type must be one of APNs's types; a silent push uses background"
                )
            )
        }
        guard let priority = priorityValue(headers.priority ?? "10") else {
            return .failure(APNsError(status: 400, reason: "BadPriority", detail: "apns-priority must be 1, 5 or 10"))
        }
        if pushType == "background" && priority == 10 {
            return .failure(
                APNsError(
                    status: 400,
                    reason: "BadPriority",
                    detail: "a background push must be sent with apns-priority 5 (APNs assumes 10 when absent)"
                )
            )
        }
        if let expiration = headers.expiration, Int64(expiration).map({ $0 < 0 }) ?? true {
            return .failure(
                APNsError(
                    status: 400,
                    reason: "BadExpirationDate",
                    detail: "apns-expiration must be a UNIX time in seconds, or 0"
                )
            )
        }
        if let collapse = headers.collapseID, collapse.utf8.count > 64 {
            return .failure(
                APNsError(status: 400, reason: "BadCollapseId", detail: "apns-collapse-id is at most 64 bytes")
            )
        }
        let apnsID = headers.apnsID
        if let apnsID, !isUUID(apnsID) {
            return .failure(
                APNsError(
                    status: 400,
                    reason: "BadMessageId",
                    detail: "apns-id must be a UUID like 123e4567-e89b-12d3-a456-42665544000a"
                )
            )
        }
        guard !request.body.isEmpty else {
            return .failure(APNsError(status: 400, reason: "PayloadEmpty"))
        }
        guard request.body.count <= maxPayloadBytes else {
            return .failure(
                APNsError(
                    status: 413,
                    reason: "PayloadTooLarge",
                    detail: "the payload is \(request.body.count) bytes; at most \(maxPayloadBytes)"
                )
            )
        }
        // Lerix's own payload is known good: skip parsing it (most pushes in a fan-out).
        if !isLerixPayload(request.body) {
            guard let payload = try? JSON.parse(request.body), payload.objectValue != nil else {
                return .failure(
                    APNsError(status: 400, reason: "BadPayload", detail: "the payload must be a JSON object")
                )
            }
            guard let aps = payload["aps"]?.objectValue else {
                return .failure(APNsError(status: 400, reason: "BadPayload", detail: "the payload needs an aps object"))
            }
            if pushType == "background" && aps["content-available"]?.intValue != 1 {
                return .failure(
                    APNsError(
                        status: 400,
                        reason: "BadPayload",
                        detail: "a background push needs aps.content-available: 1 to wake the app"
                    )
                )
            }
        }
        return .success(
            APNsPush(
                token: token,
                topic: topic,
                pushType: pushType,
                priority: priority,
                payload: request.body,
                apnsID: apnsID
            )
        )
    }

    static func isDeviceToken(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { bytes in
            let n = bytes.count
            guard n >= 16, n <= 200, n % 2 == 0 else { return false }
            for b in bytes where !isHex(b) { return false }
            return true
        }
    }

    /// 1, 5 or 10 (the values APNs takes) as `Int` reads them; nil for anything else.
    static func priorityValue(_ text: String) -> Int? {
        switch text {
        case "5": return 5
        case "10": return 10
        case "1": return 1
        default: return Int(text).flatMap { [1, 5, 10].contains($0) ? $0 : nil }
        }
    }

    /// Byte for byte ``APNsRequest/body``: known good, so not parsed (most pushes in a fan-out).
    static func isLerixPayload(_ body: [UInt8]) -> Bool {
        let lerix = APNsRequest.body
        guard body.count == lerix.count else { return false }
        // Eight bytes at a time (the generic `==` walked the arrays byte by byte through their
        // indices, ~480 instructions per APNs request).
        return body.withUnsafeBytes { b in
            lerix.withUnsafeBytes { l in
                var i = 0
                while i + 8 <= b.count {
                    guard
                        b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                            == l.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    else { return false }
                    i += 8
                }
                while i < b.count {
                    guard b[i] == l[i] else { return false }
                    i += 1
                }
                return true
            }
        }
    }

    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (i, b) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                if b != UInt8(ascii: "-") { return false }
            } else if !isHex(b) {
                return false
            }
        }
        return true
    }

    static func isHex(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102)
    }
}
