import Clock

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
    /// creation order.
    public func evaluate(_ device: Device, now: Instant) -> Evaluation {
        var required: Evaluation.Update?
        var optional: Evaluation.Update?
        var windows: [Evaluation.Window] = []
        var switches: [Evaluation.Switch] = []
        var next: Instant?
        func mayChange(at t: Instant) {
            guard t > now else { return }
            if let n = next, n <= t { return }
            next = t
        }
        // Strictly higher `below` wins, so the rule created first keeps a tie.
        func outranks(_ u: UpdateRule, _ current: Evaluation.Update?) -> Bool {
            guard let current else { return true }
            return u.below > current.update.below
        }

        for rule in rules {
            switch rule.body {
            case .requiredUpdate(let u):
                guard u.matches(device), outranks(u, required) else { continue }
                required = Evaluation.Update(rule: rule.id, update: u)
            case .optionalUpdate(let u):
                guard u.matches(device), outranks(u, optional) else { continue }
                optional = Evaluation.Update(rule: rule.id, update: u)
            case .recommendedUpdate(let u, let deadline):
                guard u.matches(device) else { continue }
                if now >= deadline {
                    if outranks(u, required) { required = Evaluation.Update(rule: rule.id, update: u) }
                } else {
                    if outranks(u, optional) {
                        optional = Evaluation.Update(rule: rule.id, update: u, becomesRequiredOn: deadline)
                    }
                    mayChange(at: deadline)
                }
            case .maintenance(let w):
                guard Platform.list(w.platforms, contains: device.platform), w.endsAt > now else { continue }
                windows.append(Evaluation.Window(rule: rule.id, window: w))
                mayChange(at: w.endsAt)
                mayChange(at: w.startsAt.adding(seconds: -Self.imminentWindowSeconds))
            case .sdkSwitch(let s):
                guard s.matches(device), s.endsAt > now else { continue }
                switches.append(Evaluation.Switch(rule: rule.id, sdkSwitch: s))
                mayChange(at: s.endsAt)
            }
        }
        // A stable sort keeps creation order among windows with equal start and end.
        if windows.count > 1 {
            windows = windows.enumerated().sorted { a, b in
                (a.element.window.startsAt, a.element.window.endsAt, a.offset) < (
                    b.element.window.startsAt, b.element.window.endsAt, b.offset
                )
            }.map(\.element)
        }

        var lifetime = Self.longLifetime
        let soon = now.adding(seconds: Self.imminentWindowSeconds)
        if windows.contains(where: { $0.window.startsAt <= soon }) { lifetime = Self.shortLifetime }
        if let last = lastChangeAt {
            let recentUntil = last.adding(seconds: Self.recentChangeSeconds)
            if now < recentUntil { lifetime = Self.shortLifetime }
            mayChange(at: recentUntil)
        }
        return Evaluation(
            project: key,
            requiredUpdate: required,
            optionalUpdate: required == nil ? optional : nil,
            maintenance: windows,
            sdkSwitches: switches,
            lifetime: lifetime,
            evaluatedAt: now,
            validUntil: next
        )
    }
}
