import Clock
import JSON

/// One project's release-control state: its rules and change log. A value type; its
/// owner keeps it under one lock and mutates it with the admin operations.
///
/// Rule ids are `r1`, `r2`, … in creation order and never reused; change ids count
/// 1, 2, …. Every mutation bumps ``revision``, so answers cached per revision go stale.
/// (After replacing the whole value, for example on a reset, drop such caches: a fresh
/// value starts again at revision 0.)
///
/// ```swift
/// var project = ProjectState(key: "demo", apnsTopic: nil, fcmProject: nil, seedRules: [])
/// let (rule, change) = try project.createRule(json, now: clock.now)   // rule.id == "r1", change.id == 1
/// let answer = project.evaluate(Device(platform: .ios, version: Version("2.0")), now: clock.now)
/// ```
public struct ProjectState: Sendable {
    public var key: String
    public var apnsTopic: String?
    public var fcmProject: String?
    public internal(set) var rules: [Rule]
    public internal(set) var changes: [Change]
    /// When the latest admin change was made; nil when there has been none since the seed.
    public internal(set) var lastChangeAt: Instant?
    /// Bumps on every mutation of the rules or the change log.
    public internal(set) var revision: Int = 0
    /// The number in the next rule id.
    public internal(set) var nextRuleNumber: Int
    /// The next change id.
    public internal(set) var nextChangeId: Int

    /// A project seeded with `seedRules`, which get ids `r1`, `r2`, …; seeding is not a change.
    public init(key: String, apnsTopic: String? = nil, fcmProject: String? = nil, seedRules: [RuleBody]) {
        self.key = key
        self.apnsTopic = apnsTopic
        self.fcmProject = fcmProject
        self.rules = seedRules.enumerated().map { Rule(id: "r\($0.offset + 1)", body: $0.element) }
        self.changes = []
        self.lastChangeAt = nil
        self.nextRuleNumber = seedRules.count + 1
        self.nextChangeId = 1
    }

    /// Rebuilds a project from stored rules and changes. The counters never go below what
    /// the rules and changes already use, so ids stay unique even when they are omitted.
    public init(
        key: String,
        apnsTopic: String?,
        fcmProject: String?,
        rules: [Rule],
        changes: [Change],
        nextRuleNumber: Int? = nil,
        nextChangeId: Int? = nil
    ) {
        self.key = key
        self.apnsTopic = apnsTopic
        self.fcmProject = fcmProject
        self.rules = rules
        self.changes = changes
        self.lastChangeAt = changes.last?.at
        var usedRules = rules.compactMap { Rule.number(of: $0.id) }
        for change in changes {
            if let id = change.ruleId, let n = Rule.number(of: id) { usedRules.append(n) }
            usedRules.append(contentsOf: change.lifted.compactMap(Rule.number(of:)))
        }
        // Clamped at one past the maximum (which means "used up"), so `+ 1` cannot overflow.
        let usedUp = Identifier.maximumNumber + 1
        let highestChange = min(changes.map(\.id).max() ?? 0, Identifier.maximumNumber)
        self.nextRuleNumber = min(max(nextRuleNumber ?? 1, (usedRules.max() ?? 0) + 1), usedUp)
        self.nextChangeId = min(max(nextChangeId ?? 1, highestChange + 1), usedUp)
    }

    /// True when the next change would take an id past ``Identifier/maximumNumber``: the
    /// project then refuses changes (a snapshot or state file can start it that close).
    public var changeIdsUsedUp: Bool { nextChangeId > Identifier.maximumNumber }

    public func rule(id: String) -> Rule? {
        rules.first { $0.id == id }
    }

    /// `{"key", "apns_topic", "fcm_project", "rule_count", "change_count", "last_change_at"}` with counts
    /// for rules and changes, as `GET /admin/projects` lists a project.
    public var json: JSON {
        .object([
            ("key", .string(key)),
            ("apns_topic", apnsTopic.map(JSON.string) ?? .null),
            ("fcm_project", fcmProject.map(JSON.string) ?? .null),
            ("rule_count", .number(Double(rules.count))),
            ("change_count", .number(Double(changes.count))),
            ("last_change_at", lastChangeAt.map { .string($0.rfc3339) } ?? .null),
        ])
    }

    /// `{"rules": [...]}`.
    public var rulesJSON: JSON { .object([("rules", .array(rules.map(\.json)))]) }
}
