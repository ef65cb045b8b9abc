import AdapterProtocol
import JSON
import MockServer
import ScenarioLanguage

/// The second judge: invariants any correct SDK keeps whatever the history, each tied to its
/// row of `Scenarios/spec-catalogue.yaml`. Two SDKs that share a misreading pass the
/// differential judge together; these catch them.
///
/// ```swift
/// SpecProperties.check(history, trace)   // nil, or the first broken property
/// ```
public enum SpecProperties {
    /// Every property: its name, its spec row, what it says.
    public static let all: [(name: String, row: String, text: String)] = [
        (
            "required-lifts-only-by-check", "offline.required.expired",
            "a required update never lifts without a successful check that says so (or an install)"
        ),
        (
            "maintenance-ends", "offline.maintenance.expired",
            "the maintenance screen never shows outside a window's start and end, even offline"
        ),
        (
            "maintenance-applies", "offline.maintenance.no-network",
            "a saved window in force shows the maintenance screen unless a required update blocks"
        ),
        ("no-version-never-blocked", "safe.no-version", "a device without a version has no update"),
        (
            "install-drops-update", "offline.install-drops-update",
            "after an install no saved update shows until a successful check"
        ),
        (
            "no-background-check", "check.silent-push",
            "no check while the app is in the background or not running without a push or refresh()"
        ),
        (
            "poll-at-most-once-a-minute", "check.foreground-polling",
            "a check no move asked for comes at least 60 s after the previous one"
        ),
        (
            "no-poll-at-300", "lifetime.default",
            "a check no move asked for never follows an answer whose lifetime is 300 s"
        ),
        (
            "optional-dropped-after-7-days", "offline.optional.expired",
            "an optional update shows at most 7 days after the last successful check"
        ),
        ("later-and-skip", "offline.optional.no-network", "a skipped rule's prompt never shows again"),
        ("refresh-checks", "check.refresh", "refresh() online makes a check"),
        ("launch-checks", "check.app-start", "a launch online makes a check"),
        ("foreground-checks-stale", "check.foreground", "back to the foreground with a stale answer, a check"),
        ("paused-sends-nothing", "switch.pauses-modules", "a paused module sends nothing"),
        (
            "check-names-the-device", "safe.no-version",
            "every check names the device as it is: its platform, its version and build, and no version when it has none"
        ),
    ]

    static let day: Int64 = 86_400_000

    /// The device as the properties model it between moves.
    struct Model {
        var running = false
        var visible = false
        var online = true
        var version: String?
        var build: String?
        var lastSuccess: Int64?
        var lastLifetime = 300
        var lastCheck: Int64?
        var installedSinceSuccess = false
        var skipped: Set<String> = []
        var laterHidden = false
        /// The device clock was set while the app was not running, and no successful check has
        /// corrected it since. The next process has only the device clock and what it saved
        /// (docs/behaviour.md `offline.clock-correction`): window starts and ends, switch ends, an
        /// answer's age and the 7-day drop are all read from saved device-clock times and so are
        /// off by as much as the clock moved. Every property that judges one of them holds back:
        /// maintenance, paused modules, the stale foreground check, the 7-day drop.
        var clockUnseen = false
    }

    public static func check(_ history: History, _ trace: HistoryTrace) -> Finding? {
        var m = Model()
        m.version = history.appVersion
        m.build = history.build
        var previous: JSONObject? = nil
        for (i, o) in trace.observations.enumerated() {
            let move = history.moves[i]
            let before = m
            let prevState = previous ?? JSONObject()
            let s = o.state
            let checksDelta = (s["checks"]?.intValue ?? 0) - (prevState["checks"]?.intValue ?? 0)
            let moveStart = i == 0 ? 0 : trace.observations[i - 1].time
            func broken(_ name: String, _ fields: [String], _ why: String, expected: JSONObject) -> Finding {
                let row = all.first(where: { $0.name == name })?.row ?? "intro.server-evaluates"
                return Finding(
                    judge: name,
                    step: i,
                    fields: fields,
                    message: "after move \(i + 1) (\(move.yaml)): \(why)",
                    covers: [row],
                    expected: expected
                )
            }

            // The model follows the move, its events (pushes delivered) and the checks it caused.
            switch move {
            case .app(.launch):
                m.running = true
                m.visible = true
                m.laterHidden = false
            case .app(.foreground): if m.running { m.visible = true }
            case .app(.background): m.visible = false
            case .app(.terminate):
                m.running = false
                m.visible = false
            case .network(let online): m.online = online
            case .setClock: if !m.running { m.clockUnseen = true }
            case .install(let version, let build):
                m.running = false
                m.visible = false
                m.version = version
                m.build = build
                m.installedSinceSuccess = true
                m.laterHidden = false
            default: break
            }
            let asked = !o.events.isEmpty
            var successInMove = false
            var lastInMove: Int64? = nil
            for c in o.checks {
                // The server evaluates the device the check describes (intro.server-evaluates): a
                // device without a version that asks as one can be blocked (safe.no-version).
                if c.platform != history.platform || c.version != m.version || c.build != m.build {
                    func named(_ s: String?) -> String { s ?? "none" }
                    var f = broken(
                        "check-names-the-device",
                        ["checks"],
                        "a check at \(FlowYAML.duration(c.time, signed: true)) asked as platform \(named(c.platform)), version \(named(c.version)), build \(named(c.build)); the device is \(history.platform), version \(named(m.version)), build \(named(m.build))",
                        expected: JSONObject()
                    )
                    f.expectedServer = JSONObject([
                        (
                            "last",
                            .object([
                                ("platform", .string(history.platform)),
                                ("version", m.version.map(JSON.string) ?? "absent"),
                                ("build", m.build.map(JSON.string) ?? "absent"),
                            ])
                        )
                    ])
                    return f
                }
                let timerDriven = !asked
                if timerDriven, let last = m.lastCheck ?? lastInMove, c.time - last < 60_000 {
                    return broken(
                        "poll-at-most-once-a-minute",
                        ["checks"],
                        "a check at \(FlowYAML.duration(c.time, signed: true)) only \(FlowYAML.duration(c.time - last, signed: false)) after the previous one",
                        expected: JSONObject([("checks", .number(Double(prevState["checks"]?.intValue ?? 0)))])
                    )
                }
                if timerDriven, m.lastSuccess != nil, m.lastLifetime > 60 {
                    return broken(
                        "no-poll-at-300",
                        ["checks"],
                        "a check at \(FlowYAML.duration(c.time, signed: true)) no move asked for, while the last answer's lifetime is \(m.lastLifetime) s",
                        expected: JSONObject([("checks", .number(Double(prevState["checks"]?.intValue ?? 0)))])
                    )
                }
                m.lastCheck = c.time
                lastInMove = c.time
                if c.succeeded {
                    m.lastSuccess = c.time
                    m.lastLifetime = c.lifetime ?? m.lastLifetime
                    m.installedSinceSuccess = false
                    if m.running { m.clockUnseen = false }
                    if c.status == 200 { successInMove = true }
                }
            }
            if !asked, !(before.running && before.visible), !o.checks.isEmpty {
                return broken(
                    "no-background-check",
                    ["checks"],
                    "\(o.checks.count) check(s) while the app was \(before.running ? "in the background" : "not running"), with no push or refresh()",
                    expected: JSONObject([("checks", .number(Double(prevState["checks"]?.intValue ?? 0)))])
                )
            }

            let required = s["required_update"] ?? .null
            let optional = s["optional_update"] ?? .null
            let screen = s["screen"]?.stringValue ?? ""
            if let prevRequired = prevState["required_update"], !prevRequired.isNull, required.isNull,
                !successInMove, !isInstall(move)
            {
                return broken(
                    "required-lifts-only-by-check",
                    ["required_update"],
                    "the required update \(prevRequired.serializedString) lifted without a successful check",
                    expected: JSONObject([("required_update", .object([("rule", prevRequired["rule"] ?? .null)]))])
                )
            }
            let windows = (s["maintenance"]?.arrayValue ?? []).compactMap { w -> (Int64, Int64)? in
                guard let a = w["starts_at"]?.stringValue.flatMap(TimeSyntax.milliseconds),
                    let b = w["ends_at"]?.stringValue.flatMap(TimeSyntax.milliseconds)
                else { return nil }
                return (a, b)
            }
            let now = o.time
            if screen == "maintenance", !m.clockUnseen,
                !windows.contains(where: { $0.0 <= now + 1000 && now < $0.1 + 1000 })
            {
                return broken(
                    "maintenance-ends",
                    ["screen"],
                    "the maintenance screen shows at \(FlowYAML.duration(now, signed: true)) outside every window \(windows.map { "\(FlowYAML.duration($0.0, signed: true))..\(FlowYAML.duration($0.1, signed: true))" })",
                    expected: JSONObject([
                        ("screen", .string(required.isNull ? (optional.isNull ? "none" : screen) : "required_update"))
                    ])
                )
            }
            if required.isNull, screen != "maintenance", !m.clockUnseen,
                windows.contains(where: { $0.0 + 1000 <= now && now + 1000 < $0.1 })
            {
                return broken(
                    "maintenance-applies",
                    ["screen"],
                    "a saved window is in force at \(FlowYAML.duration(now, signed: true)) but the screen is \(screen)",
                    expected: JSONObject([("screen", "maintenance")])
                )
            }
            if m.version == nil, !required.isNull || !optional.isNull {
                return broken(
                    "no-version-never-blocked",
                    ["required_update", "optional_update"],
                    "a device without a version holds an update",
                    expected: JSONObject([("required_update", .null), ("optional_update", .null)])
                )
            }
            if m.installedSinceSuccess, !required.isNull || !optional.isNull {
                return broken(
                    "install-drops-update",
                    ["required_update", "optional_update"],
                    "an update saved before the install shows before any successful check",
                    expected: JSONObject([("required_update", .null), ("optional_update", .null)])
                )
            }
            if !optional.isNull, !m.clockUnseen, m.lastSuccess.map({ now - $0 >= 7 * day }) ?? true {
                return broken(
                    "optional-dropped-after-7-days",
                    ["optional_update"],
                    "an optional update still held \(m.lastSuccess.map { FlowYAML.duration(now - $0, signed: false) } ?? "with no successful check") after the last success",
                    expected: JSONObject([("optional_update", .null)])
                )
            }
            // Later hides the prompt until the next start; Skip hides that rule's for good. Only a
            // running app's user can press either (a history may send them to a closed app).
            if case .app(.skip) = move, before.running, prevState["screen"]?.stringValue == "optional_update",
                let rule = prevState["optional_update"]?["rule"]?.stringValue
            {
                m.skipped.insert(rule)
            }
            if case .app(.later) = move, before.running, prevState["screen"]?.stringValue == "optional_update" {
                m.laterHidden = true
            }
            if screen == "optional_update",
                m.laterHidden || optional["rule"]?.stringValue.map(m.skipped.contains) == true
            {
                return broken(
                    "later-and-skip",
                    ["screen"],
                    "the optional prompt of \(optional["rule"]?.stringValue ?? "?") shows after \(m.laterHidden ? "Later" : "Skip")",
                    expected: JSONObject([("screen", "none")])
                )
            }
            if case .app(.refresh) = move, before.running, before.online, checksDelta < 1 {
                return broken(
                    "refresh-checks",
                    ["checks"],
                    "refresh() online made no check",
                    expected: JSONObject([("checks", .number(Double((prevState["checks"]?.intValue ?? 0) + 1)))])
                )
            }
            if case .app(.launch) = move, before.online, checksDelta < 1 {
                return broken(
                    "launch-checks",
                    ["checks"],
                    "a launch online made no check",
                    expected: JSONObject([("checks", .number(Double((prevState["checks"]?.intValue ?? 0) + 1)))])
                )
            }
            if case .app(.foreground) = move, before.running, !before.visible, before.online, !before.clockUnseen,
                checksDelta < 1,
                let success = before.lastSuccess, moveStart - success >= Int64(before.lastLifetime) * 1000
            {
                return broken(
                    "foreground-checks-stale",
                    ["checks"],
                    "back to the foreground \(FlowYAML.duration(moveStart - success, signed: false)) after the last answer (lifetime \(before.lastLifetime) s), no check",
                    expected: JSONObject([("checks", .number(Double((prevState["checks"]?.intValue ?? 0) + 1)))])
                )
            }
            let pausedBefore = Set((prevState["paused_modules"]?.arrayValue ?? []).compactMap(\.stringValue))
            let pausedNow = Set((s["paused_modules"]?.arrayValue ?? []).compactMap(\.stringValue))
            // A new process judges a switch's end by its saved clock difference: with the clock
            // moved while the app was closed it may flush a module early (found by explore,
            // histories 1105:445 and 1107:229 of the Swift SDK on macOS).
            for module in pausedBefore.intersection(pausedNow).sorted() where !before.clockUnseen {
                let sentBefore = prevState["sent"]?[module]?.intValue ?? 0
                let sentNow = s["sent"]?[module]?.intValue ?? 0
                if sentNow > sentBefore {
                    return broken(
                        "paused-sends-nothing",
                        ["sent"],
                        "\(sentNow - sentBefore) \(module) item(s) sent while the module was paused",
                        expected: JSONObject([("sent", .object([(module, .number(Double(sentBefore)))]))])
                    )
                }
            }
            previous = s
            _ = lastInMove
        }
        return nil
    }

    static func isInstall(_ move: HistoryMove) -> Bool {
        if case .install = move { return true }
        return false
    }
}
