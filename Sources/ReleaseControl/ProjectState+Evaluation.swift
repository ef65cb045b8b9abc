import Clock
import JSON

extension ProjectState {
    /// Seconds before a window's start from which its answers are short-lived (and
    /// from which changing the window is blocking).
    public static let imminentWindowSeconds: Int64 = 3600
    /// Seconds after a change during which every answer is short-lived.
    public static let recentChangeSeconds: Int64 = 1800
    public static let shortLifetime = 60
    public static let longLifetime = 300

    /// What `device` gets at `now`, per the contract's "Evaluation, per device" and
    /// "Lifetime", with the instant until which time alone leaves it unchanged.
    ///
    /// Ties between update rules with equal `below` go to the rule created first;
    /// maintenance windows sort by start, then end, then creation; switches keep
    /// creation order. Absent `store_url`/`message` are written as `null`.
    public func evaluate(_ device: Device, now: Instant) -> EvaluatedAnswer {
        var required: (rule: Rule, update: UpdateRule)?
        var optional: (rule: Rule, update: UpdateRule, deadline: Instant?)?
        var windows: [(index: Int, rule: Rule, window: MaintenanceWindow)] = []
        var switches: [(rule: Rule, sdkSwitch: SDKSwitch)] = []
        var next: Instant?
        func mayChange(at t: Instant) {
            guard t > now else { return }
            if let n = next, n <= t { return }
            next = t
        }

        for (index, rule) in rules.enumerated() {
            switch rule.body {
            case .requiredUpdate(let u):
                guard u.matches(device) else { continue }
                if required.map({ u.below > $0.update.below }) ?? true { required = (rule, u) }
            case .optionalUpdate(let u):
                guard u.matches(device) else { continue }
                if optional.map({ u.below > $0.update.below }) ?? true { optional = (rule, u, nil) }
            case .recommendedUpdate(let u, let deadline):
                guard u.matches(device) else { continue }
                if now >= deadline {
                    if required.map({ u.below > $0.update.below }) ?? true { required = (rule, u) }
                } else {
                    if optional.map({ u.below > $0.update.below }) ?? true { optional = (rule, u, deadline) }
                    mayChange(at: deadline)
                }
            case .maintenance(let w):
                guard Platform.list(w.platforms, contains: device.platform), w.endsAt > now else { continue }
                windows.append((index, rule, w))
                mayChange(at: w.endsAt)
                mayChange(at: w.startsAt.adding(seconds: -Self.imminentWindowSeconds))
            case .sdkSwitch(let s):
                guard s.matches(device), s.endsAt > now else { continue }
                switches.append((rule, s))
                mayChange(at: s.endsAt)
            }
        }
        windows.sort { ($0.window.startsAt, $0.window.endsAt, $0.index) < ($1.window.startsAt, $1.window.endsAt, $1.index) }

        var lifetime = Self.longLifetime
        let soon = now.adding(seconds: Self.imminentWindowSeconds)
        if windows.contains(where: { $0.window.startsAt <= soon }) { lifetime = Self.shortLifetime }
        if let last = lastChangeAt {
            let recentUntil = last.adding(seconds: Self.recentChangeSeconds)
            if now < recentUntil { lifetime = Self.shortLifetime }
            mayChange(at: recentUntil)
        }

        let requiredJSON: JSON = required.map { r in
            .object([
                ("rule", .string(r.rule.id)),
                ("below", .string(r.update.below.text)),
                ("store_url", r.update.storeURL.map(JSON.string) ?? .null),
                ("message", r.update.message.map(JSON.string) ?? .null),
            ])
        } ?? .null
        var optionalJSON: JSON = .null
        if required == nil, let o = optional {
            optionalJSON = .object([
                ("rule", .string(o.rule.id)),
                ("kind", .string(o.deadline == nil ? "optional" : "recommended")),
                ("below", .string(o.update.below.text)),
                ("store_url", o.update.storeURL.map(JSON.string) ?? .null),
                ("message", o.update.message.map(JSON.string) ?? .null),
                ("becomes_required_on", o.deadline.map { .string($0.rfc3339) } ?? .null),
            ])
        }
        let maintenanceJSON: JSON = .array(windows.map { w in
            .object([
                ("rule", .string(w.rule.id)),
                ("starts_at", .string(w.window.startsAt.rfc3339)),
                ("ends_at", .string(w.window.endsAt.rfc3339)),
                ("message", w.window.message.map(JSON.string) ?? .null),
            ])
        })
        let switchJSON: JSON = .array(switches.map { s in
            .object([
                ("rule", .string(s.rule.id)),
                ("modules", .array(s.sdkSwitch.modules.map { .string($0.rawValue) })),
                ("ends_at", .string(s.sdkSwitch.endsAt.rfc3339)),
            ])
        })
        let state: JSON = .object([
            ("required_update", requiredJSON),
            ("optional_update", optionalJSON),
            ("maintenance", maintenanceJSON),
            ("sdk_switch", switchJSON),
        ])
        return EvaluatedAnswer(project: key, state: state, lifetime: lifetime, evaluatedAt: now, validUntil: next)
    }
}
