import AdapterProtocol
import JSON
import MockServer

/// The first judge: the same history on a reference SDK against an identical fresh server.
/// After every move the observable state (screen, each part of the answer in force, paused
/// modules, queued items) and the checks each SDK made (how many, at which virtual times) must
/// be the same.
///
/// ```swift
/// DifferentialJudge.compare(history, subject: webTrace, reference: swiftTrace)   // nil: alike
/// ```
public enum DifferentialJudge {
    /// The state fields compared, in the order a report names them.
    public static let fields = [
        "screen", "required_update", "optional_update", "maintenance", "paused_modules", "queued", "checks",
    ]

    public static func compare(_ history: History, subject: HistoryTrace, reference: HistoryTrace) -> Finding? {
        let steps = min(subject.observations.count, reference.observations.count)
        for i in 0..<steps {
            let s = subject.observations[i]
            let r = reference.observations[i]
            var differing: [String] = []
            var expected = JSONObject()
            var lines: [String] = []
            for field in fields {
                let seen = projected(s.state[field])
                let want = projected(r.state[field])
                if seen != want {
                    differing.append(field)
                    expected[field] = want
                    lines.append("\(field): reference \(want.serializedString), seen \(seen.serializedString)")
                }
            }
            if !differing.isEmpty {
                return finding(history, step: i, fields: differing, expected: expected, lines: lines)
            }
            let seenTimes = s.checks.map(\.time)
            let wantTimes = r.checks.map(\.time)
            if seenTimes != wantTimes {
                // Same count after the move, other times: split the move where they first part.
                let first =
                    zip(seenTimes, wantTimes).first(where: { $0 != $1 }).map { min($0, $1) }
                    ?? (seenTimes.count < wantTimes.count ? wantTimes[seenTimes.count] : seenTimes[wantTimes.count])
                let before = (r.state["checks"]?.intValue ?? 0) - r.checks.count
                let reachedAt = before + r.checks.filter { $0.time <= first }.count
                var f = finding(
                    history,
                    step: i,
                    fields: ["checks"],
                    expected: JSONObject([("checks", .number(Double(reachedAt)))]),
                    lines: [
                        "check times: reference \(wantTimes.map { FlowYAML.duration($0, signed: true) }), seen \(seenTimes.map { FlowYAML.duration($0, signed: true) })"
                    ]
                )
                f.splitAt = first
                return f
            }
        }
        if subject.observations.count != reference.observations.count {
            let i = steps
            let subjectStopped = subject.observations.count < reference.observations.count
            let why = (subjectStopped ? subject.stopped : reference.stopped)?.reason ?? "stopped"
            // The file's last move is the one the SDK under test could not make, then what the
            // reference showed after it: the move fails on the SDK under test, the expectation
            // holds on the reference. When the reference is the one that stopped, no file can
            // pass on it: the expectation is what the SDK under test showed, and the file is
            // reported (and headed) as not verified.
            let went = subjectStopped ? reference.observations[i] : subject.observations[i]
            var expected = JSONObject()
            for field in fields { expected[field] = projected(went.state[field]) }
            return Finding(
                judge: "differential",
                step: i,
                fields: ["stopped"],
                message: "move \(i + 1) (\(history.moves[safe: i]?.yaml ?? "")): "
                    + (subjectStopped
                        ? "the SDK under test could not go on: \(why)"
                        : "the reference could not go on (the SDK under test did): \(why)"),
                covers: ["intro.server-evaluates"],
                expected: expected
            )
        }
        return nil
    }

    static func finding(
        _ history: History,
        step: Int,
        fields: [String],
        expected: JSONObject,
        lines: [String]
    )
        -> Finding
    {
        var covers: [String] = []
        for field in fields { covers += rows(field: field, move: history.moves[step]) }
        return Finding(
            judge: "differential",
            step: step,
            fields: fields,
            message: "after move \(step + 1) (\(history.moves[step].yaml)): " + lines.joined(separator: "; "),
            covers: Array(Set(covers)).sorted(),
            expected: expected
        )
    }

    /// A value as compared: object keys whose value is null are left out (one SDK writes
    /// `message: null`, another leaves it out), a list of objects likewise.
    static func projected(_ value: JSON?) -> JSON {
        switch value {
        case nil: return .null
        case .object(let o)?:
            var out = JSONObject()
            for (k, v) in o where !v.isNull { out[k] = projected(v) }
            return .object(out)
        case .array(let items)?: return .array(items.map { projected($0) })
        case let v?: return v
        }
    }

    /// Rows a history is about whatever failed in it: the moves that exist to test one row (a
    /// clock set, an install, a fault, lift-all, Later and Skip).
    static func rows(of history: History) -> [String] {
        var rows: Set<String> = []
        for move in history.moves {
            switch move {
            case .setClock: rows.insert("offline.clock-correction")
            case .install: rows.insert("offline.install-drops-update")
            case .fault: rows.insert("safe.bad-answer")
            case .liftAll: rows.insert("safe.lift-all")
            case .app(.later), .app(.skip): rows.insert("offline.optional.no-network")
            default: break
            }
        }
        if history.clockOffsetSeconds != 0 { rows.insert("offline.clock-correction") }
        return rows.sorted()
    }

    /// The spec rows a difference in `field` after `move` is about.
    static func rows(field: String, move: HistoryMove) -> [String] {
        var rows: [String] = []
        switch field {
        case "screen", "required_update": rows.append("offline.required.no-network")
        case "optional_update": rows.append("offline.optional.no-network")
        case "maintenance": rows.append("offline.maintenance.no-network")
        case "paused_modules": rows.append("switch.pauses-modules")
        case "queued": rows.append("switch.queue-flushes")
        default: break
        }
        switch move {
        case .app(.launch): rows.append("check.app-start")
        case .app(.foreground): rows.append("check.foreground")
        case .app(.refresh): rows.append("check.refresh")
        case .app(.push): rows.append("check.silent-push")
        case .app(.later), .app(.skip): rows.append("offline.optional.no-network")
        case .network(true): rows.append("check.foreground-web")
        case .after where field == "checks": rows.append("check.foreground-polling")
        case .after where field == "optional_update": rows.append("offline.optional.expired")
        case .after where field == "maintenance" || field == "screen": rows.append("offline.maintenance.expired")
        case .install: rows.append("offline.install-drops-update")
        case .setClock: rows.append("offline.clock-correction")
        case .liftAll: rows.append("safe.lift-all")
        case .fault: rows.append("safe.bad-answer")
        default: break
        }
        return rows
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
