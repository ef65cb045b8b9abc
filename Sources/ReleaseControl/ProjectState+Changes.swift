import Clock
import JSON

extension ProjectState {
    /// Validates `json`, adds it as a new rule with the next id, and records the change.
    public mutating func createRule(_ json: JSON, now: Instant) throws(ValidationFailure) -> (Rule, Change) {
        let body = try RuleBody.decode(json)
        guard nextRuleNumber <= Identifier.maximumNumber else {
            throw ValidationFailure(
                "",
                "this project has used every rule id up to r\(Identifier.maximumNumber); ids are never reused "
                    + "(POST /admin/reset, or PUT /admin/state with lower ids, starts again)",
                kind: .invalidValue
            )
        }
        let rule = Rule(id: "r\(nextRuleNumber)", body: body)
        nextRuleNumber += 1
        rules.append(rule)
        let change = record(
            .created,
            action: "created \(body.type.rawValue) \(rule.id)",
            ruleId: rule.id,
            blocking: body.isBlockingState(at: now),
            now: now
        )
        return (rule, change)
    }

    /// Replaces rule `id` (its type may change); nil when there is no such rule. An unknown
    /// id is reported before the body is validated (404 wins over 400/422).
    public mutating func replaceRule(
        id: String,
        with json: JSON,
        now: Instant
    ) throws(ValidationFailure) -> (Rule, Change)? {
        guard let index = rules.firstIndex(where: { $0.id == id }) else { return nil }
        let body = try RuleBody.decode(json, id: id)
        let old = rules[index].body
        let rule = Rule(id: id, body: body)
        rules[index] = rule
        let action =
            old.type == body.type
            ? "updated \(body.type.rawValue) \(id)"
            : "updated \(id) from \(old.type.rawValue) to \(body.type.rawValue)"
        let change = record(
            .updated,
            action: action,
            ruleId: id,
            blocking: old.isBlockingState(at: now) || body.isBlockingState(at: now),
            now: now
        )
        return (rule, change)
    }

    /// The latest change that removed rule `id`: deleted it, or lifted it with lift-all; nil
    /// when no change in the log did (the id was never this project's, or came from a snapshot).
    public func removal(ofRule id: String) -> Change? {
        changes.last { change in
            switch change.kind {
            case .deleted: change.ruleId == id
            case .liftedAll: change.lifted.contains(id)
            case .created, .updated: false
            }
        }
    }

    /// Deletes rule `id`; nil when there is no such rule.
    public mutating func deleteRule(id: String, now: Instant) -> Change? {
        guard let index = rules.firstIndex(where: { $0.id == id }) else { return nil }
        let old = rules.remove(at: index)
        return record(
            .deleted,
            action: "deleted \(old.type.rawValue) \(id)",
            ruleId: id,
            blocking: old.body.isBlockingState(at: now),
            now: now
        )
    }

    /// Ends every blocking state in one change: removes every required update, every
    /// recommended update past its deadline and every maintenance window (upcoming ones
    /// too). Optional updates, recommended updates before their deadline and SDK switches
    /// stay. A lift-all that found nothing is still a change, but not blocking.
    public mutating func liftAll(now: Instant) -> (lifted: [Rule], change: Change) {
        let lifted = rules.filter { $0.body.isLiftedByLiftAll(at: now) }
        rules.removeAll { $0.body.isLiftedByLiftAll(at: now) }
        let action =
            lifted.isEmpty
            ? "lift-all lifted nothing"
            : "lift-all lifted " + lifted.map { "\($0.type.rawValue) \($0.id)" }.joined(separator: ", ")
        let change = record(
            .liftedAll,
            action: action,
            ruleId: nil,
            lifted: lifted.map(\.id),
            blocking: !lifted.isEmpty,
            now: now
        )
        return (lifted, change)
    }

    mutating func record(
        _ kind: Change.Kind,
        action: String,
        ruleId: String?,
        lifted: [String] = [],
        blocking: Bool,
        now: Instant
    ) -> Change {
        let change = Change(
            id: nextChangeId,
            at: now,
            kind: kind,
            action: action,
            ruleId: ruleId,
            lifted: lifted,
            blocking: blocking
        )
        nextChangeId += 1
        changes.append(change)
        lastChangeAt = now
        revision += 1
        return change
    }
}
