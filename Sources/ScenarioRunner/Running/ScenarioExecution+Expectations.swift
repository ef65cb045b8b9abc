import AdapterProtocol
import AdminClient
import Clock
import JSON
import ScenarioLanguage

extension ScenarioExecution {
    /// Nil when `expectation` holds now, else what differs.
    func check(_ expectation: Expectation) throws -> StepFailure? {
        switch expectation {
        case .device(let names, let fields):
            var problems: [String] = []
            var failing: [String] = []
            // What every device is held to, when resolving it read nothing of one device.
            var shared: (fields: JSONObject, notes: [String])?
            for name in names {
                let state = try adapter.deviceState(name)
                if keepsCounts { seenStates[name] = Self.counts(of: state) }
                let (expected, notes): (JSONObject, [String])
                if let shared {
                    (expected, notes) = shared
                } else {
                    let resolved = resolvingRelative(fields, device: name)
                    (expected, notes) = (withServerRuleIds(resolved.fields), resolved.notes)
                    if !resolved.perDevice { shared = (expected, notes) }
                }
                if let m = Matcher.mismatch(expected, in: state) {
                    failing.append(name)
                    if problems.count < 5 {
                        problems.append("\(name): \(m)" + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))"))
                    }
                }
            }
            guard !failing.isEmpty else { return nil }
            var message = problems.joined(separator: "\n")
            if names.count > 1 { message = "\(failing.count) of \(names.count) devices differ\n" + message }
            if failing.count > problems.count { message += "\n… and \(failing.count - problems.count) more" }
            return StepFailure(message, devices: Array(failing.prefix(3)))
        case .server(let names, let counts, let last):
            let entries = try journal(for: names)
            var seen = JSONObject()
            seen["checks"] = .number(Double(entries.count))
            seen["ok"] = .number(Double(entries.filter { $0["status"]?.intValue == 200 }.count))
            seen["not_modified"] = .number(Double(entries.filter { $0["status"]?.intValue == 304 }.count))
            seen["errors"] = .number(
                Double(entries.filter { ![200, 304].contains($0["status"]?.intValue ?? 0) }.count)
            )
            if let m = Matcher.mismatch(.object(counts), .object(seen), path: "server journal") {
                return StepFailure(m, devices: Array((names ?? []).prefix(3)))
            }
            if let last {
                let groups: [[JSON]] =
                    names.map { $0.map { n in entries.filter { matches($0, device: n) } } } ?? [entries]
                for (i, group) in groups.enumerated() {
                    let who = names.map { "\($0[i])'s" } ?? "the"
                    guard let newest = group.first else {
                        return StepFailure(
                            "\(who) latest check: expected one, seen none",
                            devices: names.map { [$0[i]] } ?? []
                        )
                    }
                    var flat = newest.objectValue ?? JSONObject()
                    for (k, v) in newest["device"]?.objectValue ?? JSONObject() { flat[k] = v }
                    if let m = Matcher.mismatch(.object(last), .object(flat), path: "\(who) latest check") {
                        return StepFailure(m, devices: names.map { [$0[i]] } ?? [])
                    }
                }
            }
            return nil
        case .pushes(let fields):
            let listed = try server.admin(Admin.project(scenario.project).pushes())
            let pushes = listed.items.filter {
                !baselinePushes.contains($0["id"]?.intValue ?? -1)
            }
            var seen = JSONObject()
            seen["count"] = .number(Double(pushes.count))
            seen["sent_at"] = .array(
                pushes.map { p in
                    guard let t = p["sent_at"]?.stringValue.flatMap(Instant.init(rfc3339:)) else { return .null }
                    return .string(TimeSyntax.relative(t.milliseconds(since: t0)))
                }
            )
            if let lastPush = pushes.last {
                let perPlatform = lastPush["tokens"]?.objectValue ?? JSONObject()
                seen["platforms"] = .object(perPlatform)
                seen["tokens"] = .number(perPlatform.reduce(0) { $0 + ($1.value.numberValue ?? 0) })
                seen["changes"] = .number(Double(lastPush["changes"]?.arrayValue?.count ?? 0))
            }
            var expected = fields
            if let times = fields["sent_at"] {
                let list = times.arrayValue ?? [times]
                expected["sent_at"] = .array(
                    list.map { item -> JSON in
                        guard let ms = item.stringValue.flatMap(TimeSyntax.milliseconds) else { return item }
                        return .string(TimeSyntax.relative(ms))
                    }
                )
            }
            if let m = Matcher.mismatch(.object(expected), .object(seen), path: "pushes") { return StepFailure(m) }
            return nil
        case .ingest(let fields):
            let ingest = try server.admin(Admin.project(scenario.project).ingest)
            if let m = Matcher.mismatch(.object(fields), .object(ingest), path: "ingest") {
                return StepFailure(m)
            }
            return nil
        }
    }

    /// The part of a device's state that later relative counts (`checks: "+1"`) start from:
    /// kept per device between expectations, so a fleet of 100,000 keeps a few numbers each.
    static func counts(of state: DeviceStateReading) -> JSON {
        .object(
            JSONObject(
                uniqueKeysWithValues: StateShape.countFields.compactMap { key in
                    state[key].map { (key: key, value: $0) }
                }
            )
        )
    }

    /// `checks: "+1"` and `last_success: +6m` made absolute for one device: counts from what the
    /// device's previous expectation saw (0 before any), times from time 0 (on the device's clock
    /// for `last_success`, the server's inside updates and windows). The notes say how, for a failure;
    /// `perDevice` whether anything of the device was read (else every device gets the same).
    func resolvingRelative(
        _ fields: JSONObject,
        device name: String
    ) -> (fields: JSONObject, notes: [String], perDevice: Bool) {
        var notes: [String] = []
        var perDevice = false
        let before = previousStates[name]
        let offsetMs = (clockOffsets[name] ?? 0) * 1000
        func count(_ value: JSON, _ path: String, base: Double?) -> JSON {
            guard let text = value.stringValue else { return value }
            let from = base ?? 0
            let origin = before == nil ? "0 at the start" : "\(Int(from)) at the previous expectation"
            if let n = StateShape.relativeCount(text) {
                perDevice = true
                notes.append("\(path) \"\(text)\" counts from \(origin)")
                return .number(from + Double(n))
            }
            if let (op, operand) = StateShape.comparison(text), let n = StateShape.relativeCount(operand) {
                perDevice = true
                notes.append("\(path) \"\(text)\" counts from \(origin)")
                return .string("\(op) \(Int(from) + n)")
            }
            return value
        }
        func time(_ value: JSON, extra: Int64) -> JSON {
            guard let text = value.stringValue, !StateShape.keywords.contains(text), Instant(rfc3339: text) == nil,
                let ms = TimeSyntax.milliseconds(text)
            else { return value }
            return .string(t0.adding(milliseconds: ms + extra).rfc3339)
        }
        func times(in value: JSON) -> JSON {
            switch value {
            case .object(var o):
                for key in StateShape.serverTimes { if let v = o[key] { o[key] = time(v, extra: 0) } }
                return .object(o)
            case .array(let items): return .array(items.map(times))
            default: return value
            }
        }
        var out = fields
        for (key, value) in fields {
            if StateShape.topCounts.contains(key) {
                out[key] = count(value, key, base: before?[key]?.numberValue)
            } else if StateShape.countObjects.contains(key), case .object(var o) = value {
                for (module, v) in o {
                    o[module] = count(v, "\(key).\(module)", base: before?[key]?[module]?.numberValue)
                }
                out[key] = .object(o)
            } else if StateShape.deviceTimes.contains(key) {
                perDevice = true  // on the device's clock
                let resolved = time(value, extra: offsetMs)
                if resolved != value, offsetMs != 0 {
                    notes.append("\(key) \(value.stringValue ?? "") is on the device's clock, \(offsetMs / 1000) s off")
                }
                out[key] = resolved
            } else if let inner = StateShape.nestedDeviceTimes[key], case .object(var o) = value {
                perDevice = true
                if let v = o[inner] { o[inner] = time(v, extra: offsetMs) }
                out[key] = .object(o)
            } else if StateShape.nested[key] != nil {
                out[key] = times(in: value)
            }
        }
        return (out, notes, perDevice)
    }

    /// `rule: block` in an expectation means the server id the runner got for rule `block`.
    func withServerRuleIds(_ fields: JSONObject) -> JSONObject {
        withServerRuleIds(.object(fields)).objectValue ?? fields
    }

    func withServerRuleIds(_ value: JSON) -> JSON {
        switch value {
        case .object(var o):
            for (k, v) in o {
                if k == "rule", let name = v.stringValue, let id = ruleIds[name] {
                    o[k] = .string(id)
                } else {
                    o[k] = withServerRuleIds(v)
                }
            }
            return .object(o)
        case .array(let a): return .array(a.map(withServerRuleIds))
        default: return value
        }
    }

    /// The journal's checks since time 0, newest first; only those of `names` when given.
    func journal(for names: [String]?) throws -> [JSON] {
        let all = try server.admin(Admin.journal(project: scenario.project, limit: 100_000))
        guard let names else { return all }
        return all.filter { entry in names.contains { matches(entry, device: $0) } }
    }

    /// Whether a journal entry came from `device`: the server knows devices only by their
    /// attributes, so devices with identical attributes share their journal lines.
    func matches(_ entry: JSON, device name: String) -> Bool {
        guard let d = devices[name] else { return false }
        let attributes = entry["device"] ?? entry
        let current = installed[name] ?? (d.appVersion, d.build)
        return attributes["platform"]?.stringValue == d.platform
            && attributes["version"]?.stringValue == current.version
            && attributes["build"]?.stringValue == current.build
            && attributes["sdk"]?.stringValue == d.sdk
            && attributes["sdk_version"]?.stringValue == d.sdkVersion
    }
}
