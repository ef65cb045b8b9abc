import Clock
import JSON
import ReleaseControl

extension PushRecord {
    /// Reads a record back from its own ``json`` (a snapshot or a store); nil when it is not one.
    public init?(json: JSON) {
        guard let id = json["id"]?.intValue, let sentText = json["sent_at"]?.stringValue,
            let sentAt = Instant(rfc3339: sentText), let changeValues = json["changes"]?.arrayValue,
            let results = json["results"]?.arrayValue
        else { return nil }
        var changes: [Int] = []
        for value in changeValues {
            guard let n = value.intValue else { return nil }
            changes.append(n)
        }
        var targets: [PushTarget] = []
        var deliveries: [TokenDelivery] = []
        for (position, item) in results.enumerated() {
            guard let token = item["token"]?.stringValue, PushTokens.problem(token: token) == nil,
                let platformName = item["platform"]?.stringValue,
                let platform = Platform(rawValue: platformName), let resultName = item["result"]?.stringValue
            else { return nil }
            if let value = item["reason"], value.stringValue == nil { return nil }
            let reason = item["reason"]?.stringValue ?? ""
            let result: DeliveryResult
            switch resultName {
            case "pending": result = .pending
            case "delivered": result = .delivered
            case "failed": result = .failed(reason: reason)
            case "unregistered": result = .unregistered(reason: reason)
            case "no_gateway": result = .noGateway
            default: return nil
            }
            targets.append(PushTarget(token: token, platform: platform))
            deliveries.append(TokenDelivery(token: token, result: result, position: position))
        }
        self.init(id: id, sentAt: sentAt, changes: changes, targets: targets)
        _ = apply(deliveries)
    }
}
