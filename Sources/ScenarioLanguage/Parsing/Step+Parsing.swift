import AdapterProtocol
import JSON
import YAML

/// What step parsing needs to know about the rest of the scenario: device names and groups,
/// and the rules defined so far with their bodies as written (a step may only touch a rule
/// created before it; an update is checked as the whole body the server will get).
struct StepContext {
    var scenario: Scenario
    var rules: [String: JSON] = [:]
    /// Device entries that did not parse (already reported): steps may name them without a second error.
    var brokenDevices: Set<String> = []

    init(scenario: Scenario) { self.scenario = scenario }

    var ruleNames: Set<String> { Set(rules.keys) }

    mutating func define(_ rule: RuleSpec) { rules[rule.name] = rule.body }

    func devices(_ node: Node) throws(ScenarioError) -> [String] {
        var out: [String] = []
        for item in node.list() {
            let name = try item.string()
            if let group = scenario.groups[name] {
                out += group
            } else if scenario.devices.contains(where: { $0.name == name }) {
                out.append(name)
            } else {
                let known = Array(scenario.groups.keys) + scenario.devices.prefix(200).map(\.name)
                throw item.error(Suggestion.message("no device or group named '\(name)'", for: name, in: known))
            }
        }
        // An expectation over no device would hold without looking at anything.
        let names = node.list().compactMap(\.json.stringValue)
        if out.isEmpty, !names.contains(where: brokenDevices.contains) {
            throw node.error(
                "\(names.map { "'\($0)'" }.joined(separator: ", ")) names no device; a step needs at least one"
            )
        }
        // One name is one device or one group, whose names are already distinct ("all", a
        // fleet of 100,000): nothing to drop, and no set of names to build.
        guard node.list().count > 1 else { return out }
        var seen = Set<String>(minimumCapacity: out.count)
        return out.filter { seen.insert($0).inserted }
    }

    func rule(_ node: Node) throws(ScenarioError) -> String {
        let name = try node.string()
        guard ruleNames.contains(name) else {
            throw node.error(
                Suggestion.message("no rule named '\(name)' exists at this step", for: name, in: Array(ruleNames))
            )
        }
        return name
    }
}

extension Step {
    static let deviceCommands = AdapterCommand.appEvents.map(\.rawValue)
    static let actions =
        deviceCommands + [
            "offline", "online", "install", "track", "set_clock",
            "create_rule", "update_rule", "delete_rule", "lift_all", "fault", "clear_faults", "push_token",
            "delete_push_token",
            "after", "at", "until", "push_delivery", "gateway_reject",
            "expect", "expect_server", "expect_pushes", "expect_ingest",
        ]
    static let noArgument: Set<String> = ["lift_all", "clear_faults"]
    static let modules = StateShape.modules
    static let faultKinds = ["status", "delay", "reset", "malformed", "wrong_types"]

    /// A step is one action: `- launch: phone`, `- after: 5m`, `- expect: {device: phone, screen: none}`,
    /// or a bare word for actions without an argument (`- lift_all`).
    static func parse(_ node: Node, context: inout StepContext) throws(ScenarioError) -> Step {
        let action: String
        let argument: Node?
        switch node.json {
        case .string(let word):
            action = word
            argument = nil
        case .object(let o):
            guard o.count == 1, let key = o.keys.first else {
                let keys = o.keys.map { "`\($0)`" }.joined(separator: ", ")
                throw node.error(
                    o.count == 0
                        ? "an empty step"
                        : "a step holds one action, this one has \(keys): put each on its own `- ` line, or indent the fields under the action"
                )
            }
            action = key
            argument = node.child(key)
        default:
            throw node.error("a step is an action such as `launch: phone` or `after: 5m`, not a \(node.json.typeName)")
        }
        guard actions.contains(action) else {
            let at = node.json.objectValue != nil ? node.keyLocation : node.location
            throw ScenarioError(Suggestion.message("unknown step '\(action)'", for: action, in: actions), at: at)
        }
        func arg() throws(ScenarioError) -> Node {
            guard let argument, !argument.json.isNull else { throw node.error("`\(action)` needs an argument") }
            return argument
        }
        let kind: StepAction
        switch action {
        case _ where AdapterCommand(rawValue: action).map(AdapterCommand.appEvents.contains) == true:
            kind = .device(
                command: AdapterCommand(rawValue: action) ?? .launch,
                devices: try context.devices(try arg())
            )
        case "offline", "online":
            kind = .network(devices: try context.devices(try arg()), online: action == "online")
        case "install":
            let a = try arg()
            try a.checkKeys(["device", "app_version", "build"], what: "`install`")
            let version = a.child("app_version")
            kind = .install(
                devices: try context.devices(try a.required("device", in: "`install`")),
                appVersion: try version.flatMap { v throws(ScenarioError) in v.json.isNull ? nil : try v.string() },
                build: try a.child("build")?.string()
            )
        case "track":
            let a = try arg()
            try a.checkKeys(["device", "module", "count"], what: "`track`")
            let moduleNode = try a.required("module", in: "`track`")
            let module = try moduleNode.string()
            guard modules.contains(module) else {
                throw moduleNode.error(Suggestion.message("unknown module '\(module)'", for: module, in: modules))
            }
            kind = .track(
                devices: try context.devices(try a.required("device", in: "`track`")),
                module: module,
                count: try a.child("count")?.int() ?? 1
            )
        case "set_clock":
            let a = try arg()
            try a.checkKeys(["device", "clock_offset"], what: "`set_clock`")
            let offsetNode = try a.required("clock_offset", in: "`set_clock`")
            let offset: Int64
            if let seconds = offsetNode.json.intValue {
                offset = Int64(seconds)
            } else if let text = offsetNode.json.stringValue, let ms = TimeSyntax.milliseconds(text) {
                offset = ms / 1000
            } else {
                throw offsetNode.error(
                    "`clock_offset` is how far the device clock is off true time: seconds or a duration such as `-2h` or `+90s` (0: right)"
                )
            }
            kind = .setClock(
                devices: try context.devices(try a.required("device", in: "`set_clock`")),
                offsetSeconds: offset
            )
        case "create_rule":
            let rule = try RuleSpec.parse(try arg())
            if context.ruleNames.contains(rule.name) { throw node.error("a rule named '\(rule.name)' already exists") }
            if !rule.expectRejected { context.define(rule) }
            kind = .createRule(rule)
        case "update_rule":
            let a = try arg()
            let name = try context.rule(try a.required("name", in: "`update_rule`"))
            let earlier = a.diagnostics.errors.count
            let rejected =
                a.attempt { () throws(ScenarioError) -> Bool in try a.child("rejected")?.bool() ?? false } ?? false
            var fields: [(String, JSON)] = []
            for (k, v) in try a.object() where !RuleSpec.runnerKeys.contains(k) {
                if RuleSpec.timeFields.contains(k) {
                    _ = v.attempt { () throws(ScenarioError) in try RuleSpec.checkTime(v) }
                }
                fields.append((k, v.json))
            }
            guard !fields.isEmpty else {
                throw a.error("`update_rule` names the fields to change, e.g. `{name: \(name), below: \"2.5.0\"}`")
            }
            let update = RuleUpdate(name: name, fields: .object(fields), expectRejected: rejected)
            if !rejected, let before = context.rules[name] {
                let after = update.applied(to: before)
                if a.diagnostics.errors.count == earlier { RuleSpec.checkWithServerRules(after, name: name, at: a) }
                context.rules[name] = after
            }
            kind = .updateRule(update)
        case "delete_rule":
            let name = try context.rule(try arg())
            context.rules[name] = nil
            kind = .deleteRule(name: name)
        case "lift_all":
            kind = .liftAll
        case "clear_faults":
            kind = .clearFaults
        case "fault":
            let a = try arg()
            try a.checkKeys(["kind", "status", "retry_after", "seconds", "count"], what: "`fault`")
            let kindNode = try a.required("kind", in: "`fault`")
            let k = try kindNode.string()
            guard faultKinds.contains(k) else {
                throw kindNode.error(Suggestion.message("unknown fault kind '\(k)'", for: k, in: faultKinds))
            }
            kind = .fault(a.json)
        case "push_token":
            let a = try arg()
            try a.checkKeys(["token", "platform"], what: "`push_token`")
            kind = .addPushToken(
                token: try a.required("token", in: "`push_token`").string(),
                platform: try a.required("platform", in: "`push_token`").string()
            )
        case "delete_push_token":
            kind = .deletePushToken(token: try arg().string())
        case "after", "at":
            let a = try arg()
            let text: String
            if let seconds = a.json.intValue { text = "\(seconds)" } else { text = try a.string() }
            guard let ms = TimeSyntax.milliseconds(text), ms >= 0 else {
                throw a.error("`\(action)` takes a duration such as `90s`, `5m`, `2h`, `7d` or `1h30m`, not '\(text)'")
            }
            kind = action == "after" ? .after(milliseconds: ms) : .at(milliseconds: ms)
        case "until":
            let a = try arg()
            guard let withinNode = a.child("within") else {
                throw a.error("`until` needs `within: <duration>`, the longest it may wait")
            }
            guard let within = TimeSyntax.milliseconds(try withinNode.string()), within > 0 else {
                throw withinNode.error("`within` takes a duration such as `2m`")
            }
            kind = .until(
                try Expectation.parseDevice(a, context: context, extra: ["within"]),
                withinMilliseconds: within
            )
        case "push_delivery":
            let a = try arg()
            try a.checkKeys(["device", "drop", "delay", "deliver"], what: "`push_delivery`")
            var policy = PushPolicy.deliver
            if let drop = a.child("drop") {
                if let b = drop.json.boolValue {
                    policy.dropProbability = b ? 1 : 0
                } else if let p = drop.json.numberValue, p >= 0, p <= 1 {
                    policy.dropProbability = p
                } else {
                    throw drop.error("`drop` is true, false or a probability from 0 to 1")
                }
            }
            if let delay = a.child("delay") {
                guard let ms = TimeSyntax.milliseconds(try delay.string()), ms >= 0 else {
                    throw delay.error("`delay` takes a duration such as `30s`")
                }
                policy.delayMilliseconds = ms
            }
            kind = .pushDelivery(
                devices: try context.devices(try a.required("device", in: "`push_delivery`")),
                policy: policy
            )
        case "gateway_reject":
            let a = try arg()
            try a.checkKeys(["device", "status"], what: "`gateway_reject`")
            let devices = try context.devices(try a.required("device", in: "`gateway_reject`"))
            for name in devices where context.scenario.devices.first(where: { $0.name == name })?.pushToken == nil {
                throw a.error("device '\(name)' has no push token for the gateway to refuse")
            }
            let status = try a.child("status")?.int()
            if let status, !(400...599).contains(status) {
                throw a.error("`status` is a provider error status such as 410 or 400")
            }
            kind = .gatewayReject(devices: devices, status: status)
        case "expect":
            kind = .expect(try Expectation.parseDevice(try arg(), context: context, extra: []))
        case "expect_server":
            kind = .expect(try Expectation.parseServer(try arg(), context: context))
        case "expect_pushes":
            kind = .expect(try Expectation.parsePushes(try arg()))
        default:  // expect_ingest
            let a = try arg()
            try a.checkKeys(modules, what: "`expect_ingest`")
            kind = .expect(.ingest(a.json.objectValue ?? JSONObject()))
        }
        if case .expect(let e) = kind, let why = Verdict.vacuity(of: e) { throw node.error("`\(action)` \(why)") }
        if case .until(let e, _) = kind, let why = Verdict.vacuity(of: e) {
            throw node.error("`until` \(why), so it holds at once")
        }
        return Step(action: kind, location: node.location, text: Self.oneLine(node.json))
    }

    /// The step in YAML flow style on one line, as a person would write it.
    static func oneLine(_ json: JSON) -> String {
        var text: String
        if case .object(let o) = json, o.count == 1, let (key, value) = o.pairs.first {
            text = key + ": " + flow(value)
        } else {
            text = flow(json)
        }
        if text.count > 160 { text = String(text.prefix(157)) + "..." }
        return text
    }

    static func flow(_ json: JSON) -> String {
        switch json {
        case .string(let s):
            let plain =
                !s.isEmpty && s.allSatisfy { $0.isLetter || $0.isNumber || "-_.+:/".contains($0) }
                && YAMLScalarCheck.staysString(s)
            return plain ? s : json.serializedString
        case .array(let a): return "[" + a.map(flow).joined(separator: ", ") + "]"
        case .object(let o): return "{" + o.pairs.map { "\($0.key): \(flow($0.value))" }.joined(separator: ", ") + "}"
        default: return json.serializedString
        }
    }
}

extension Expectation {
    static let serverKeys = ["device", "checks", "ok", "not_modified", "errors", "last"]
    static let journalFields = ["status", "lifetime", "etag", "platform", "version", "build"]
    static let pushKeys = ["count", "sent_at", "tokens", "platforms", "changes"]

    static func parseDevice(_ node: Node, context: StepContext, extra: [String]) throws(ScenarioError) -> Expectation {
        try node.checkKeys(["device"] + StateShape.keys + extra, what: "a device expectation")
        let devices = try context.devices(try node.required("device", in: "a device expectation"))
        var fields = JSONObject()
        for (k, v) in try node.object() where k != "device" && !extra.contains(k) {
            if StateShape.keys.contains(k) { StateShape.check(v, key: k) }
            fields[k] = v.json
        }
        let written = node.json.objectValue?.keys.filter { $0 != "device" && !extra.contains($0) } ?? []
        guard !written.isEmpty else {
            throw node.error("say what to expect, e.g. `screen: required_update` or `checks: 2`")
        }
        return .device(devices: devices, fields: fields)
    }

    static func parseServer(_ node: Node, context: StepContext) throws(ScenarioError) -> Expectation {
        try node.checkKeys(serverKeys, what: "`expect_server`")
        let devices = try node.child("device").map { n throws(ScenarioError) in try context.devices(n) }
        var counts = JSONObject()
        for key in ["checks", "ok", "not_modified", "errors"] {
            guard let v = node.child(key) else { continue }
            if let text = v.json.stringValue, !StateShape.keywords.contains(text),
                StateShape.comparison(text) == nil
                    || StateShape.relativeCount(StateShape.comparison(text)?.operand ?? "") != nil
            {
                v.diagnostics.record(
                    v.error(
                        "`\(key)` counts the server's journal since time 0: write a number or a comparison (`\">= 2\"`), not '\(text)'"
                    )
                )
            }
            counts[key] = v.json
        }
        var last: JSONObject?
        if let l = node.child("last") {
            try l.checkKeys(journalFields, what: "`last`")
            last = l.json.objectValue
        }
        return .server(devices: devices, counts: counts, last: last)
    }

    static func parsePushes(_ node: Node) throws(ScenarioError) -> Expectation {
        try node.checkKeys(pushKeys, what: "`expect_pushes`")
        if let platforms = node.child("platforms") {
            try? platforms.checkKeys(AdapterVocabulary.pushPlatforms, what: "`platforms` (the platforms pushes go to)")
        }
        if let s = node.child("sent_at") {
            for item in s.list() {
                let text = try item.string()
                guard TimeSyntax.milliseconds(text) != nil else {
                    throw item.error("`sent_at` lists times since time 0, such as `+60s`")
                }
            }
        }
        return .pushes(node.json.objectValue ?? JSONObject())
    }
}

/// Whether YAML would read a plain word back as the same string (not a number, bool or null).
enum YAMLScalarCheck {
    static func staysString(_ s: String) -> Bool {
        guard let doc = try? YAML.parse("- " + s + "\n") else { return false }
        return doc.json == .array([.string(s)])
    }
}
