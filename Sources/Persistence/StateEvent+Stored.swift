import JSON
import MockServer

extension StateEvent {
    /// The event as the file stores it: domain values as their admin-API JSON.
    var stored: StoredEvent {
        switch self {
        case .projectUpserted(let key, let apnsTopic, let fcmProject):
            var attributes: [(String, JSON)] = []
            if let apnsTopic { attributes.append(("apns_topic", .string(apnsTopic))) }
            if let fcmProject { attributes.append(("fcm_project", .string(fcmProject))) }
            return .projectUpserted(key: key, attributes: .object(attributes))
        case .ruleUpserted(let project, let rule):
            return .ruleUpserted(project: project, rule: StoredItem(id: rule.id, body: rule.json))
        case .ruleDeleted(let project, let ruleId):
            return .ruleDeleted(project: project, id: ruleId)
        case .changeAppended(let project, let change):
            return .changeAppended(project: project, id: change.id, body: change.json)
        case .tokenUpserted(let project, let token):
            return .tokenRegistered(project: project, token: token)
        case .tokenDeleted(let project, let token):
            return .tokenDeleted(project: project, token: token)
        case .pushRecorded(let project, let push), .pushUpdated(let project, let push):
            return .pushRecorded(project: project, id: push.id, body: push.json)
        case .ingestCounted(let project, let module, let total):
            return .ingestCounted(project: project, module: module, total: total)
        case .replaced(let snapshot):
            // The stored seed stays: a reset replays it, an import does not replace it.
            return .replaced(StoredState(seed: nil, projects: snapshot.storedProjects))
        }
    }
}
