import JSON
import YAML

/// What step parsing needs to know about the rest of the scenario: device names and groups,
/// and the rule names defined so far (a step may only touch a rule created before it).
struct StepContext {
    var scenario: Scenario
    var ruleNames: Set<String>

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
        var seen = Set<String>()
        return out.filter { seen.insert($0).inserted }
    }

    func rule(_ node: Node) throws(ScenarioError) -> String {
        let name = try node.string()
        guard ruleNames.contains(name) else {
            throw node.error(Suggestion.message("no rule named '\(name)' exists at this step", for: name, in: Array(ruleNames)))
        }
        return name
    }
}

extension Step {
    static let deviceCommands = ["launch", "foreground", "background", "push", "refresh", "terminate", "later", "skip"]
    static let actions = deviceCommands + [
        "offline", "online", "install", "track",
        "create_rule", "update_rule", "delete_rule", "lift_all", "fault", "clear_faults", "push_token", "delete_push_token",
        "after", "at", "until", "push_delivery", "gateway_reject",
        "expect", "expect_server", "expect_pushes", "expect_ingest",
    ]
    static let noArgument: Set<String> = ["lift_all", "clear_faults"]
    static let modules = ["errors", "analytics", "tracing", "feedback", "surveys"]
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
                throw node.error(o.count == 0 ? "an empty step" : "a step holds one action, this one has \(keys): put each on its own `- ` line, or indent the fields under the action")
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
        case _ where deviceCommands.contains(action):
            kind = .device(command: action, devices: try context.devices(try arg()))
        case "offline", "online":
            kind = .network(devices: try context.devices(try arg()), online: action == "online")
        case "install":
            let a = try arg()
            try a.checkKeys(["device", "app_version", "build"], what: "`install`")
            let version = a.child("app_version")
            kind = .install(devices: try context.devices(try a.required("device", in: "`install`")),
                            appVersion: try version.flatMap { v throws(ScenarioError) in v.json.isNull ? nil : try v.string() },
                            build: try a.child("build")?.string())
        case "track":
            let a = try arg()
            try a.checkKeys(["device", "module", "count"], what: "`track`")
            let moduleNode = try a.required("module", in: "`track`")
            let module = try moduleNode.string()
            guard modules.contains(module) else { throw moduleNode.error(Suggestion.message("unknown module '\(module)'", for: module, in: modules)) }
            kind = .track(devices: try context.devices(try a.required("device", in: "`track`")), module: module,
                          count: try a.child("count")?.int() ?? 1)
        case "create_rule":
            let rule = try RuleSpec.parse(try arg())
            if context.ruleNames.contains(rule.name) { throw node.error("a rule named '\(rule.name)' already exists") }
            if !rule.expectRejected { context.ruleNames.insert(rule.name) }
            kind = .createRule(rule)
        case "update_rule":
            let a = try arg()
            let name = try context.rule(try a.required("name", in: "`update_rule`"))
            var fields: [(String, JSON)] = []
            for (k, v) in try a.object() where k != "name" {
                if RuleSpec.timeFields.contains(k) { try RuleSpec.checkTime(v) }
                fields.append((k, v.json))
            }
            kind = .updateRule(name: name, fields: .object(fields))
        case "delete_rule":
            let name = try context.rule(try arg())
            context.ruleNames.remove(name)
            kind = .deleteRule(name: name)
        case "lift_all":
            kind = .liftAll
        case "clear_faults":
            kind = .clearFaults
        case "fault":
            let a = try arg()
            try a.checkKeys(["kind", "status", "seconds", "count"], what: "`fault`")
            let kindNode = try a.required("kind", in: "`fault`")
            let k = try kindNode.string()
            guard faultKinds.contains(k) else { throw kindNode.error(Suggestion.message("unknown fault kind '\(k)'", for: k, in: faultKinds)) }
            kind = .fault(a.json)
        case "push_token":
            let a = try arg()
            try a.checkKeys(["token", "platform"], what: "`push_token`")
            kind = .addPushToken(token: try a.required("token", in: "`push_token`").string(),
                                 platform: try a.required("platform", in: "`push_token`").string())
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
            guard let withinNode = a.child("within") else { throw a.error("`until` needs `within: <duration>`, the longest it may wait") }
            guard let within = TimeSyntax.milliseconds(try withinNode.string()), within > 0 else {
                throw withinNode.error("`within` takes a duration such as `2m`")
            }
            kind = .until(try Expectation.parseDevice(a, context: context, extra: ["within"]), withinMilliseconds: within)
        case "push_delivery":
            let a = try arg()
            try a.checkKeys(["device", "drop", "delay", "deliver"], what: "`push_delivery`")
            var policy = PushPolicy.deliver
            if let drop = a.child("drop") {
                if let b = drop.json.boolValue { policy.dropProbability = b ? 1 : 0 } else if let p = drop.json.numberValue, p >= 0, p <= 1 {
                    policy.dropProbability = p
                } else {
                    throw drop.error("`drop` is true, false or a probability from 0 to 1")
                }
            }
            if let delay = a.child("delay") {
                guard let ms = TimeSyntax.milliseconds(try delay.string()), ms >= 0 else { throw delay.error("`delay` takes a duration such as `30s`") }
                policy.delayMilliseconds = ms
            }
            kind = .pushDelivery(devices: try context.devices(try a.required("device", in: "`push_delivery`")), policy: policy)
        case "gateway_reject":
            let a = try arg()
            try a.checkKeys(["device", "status"], what: "`gateway_reject`")
            let devices = try context.devices(try a.required("device", in: "`gateway_reject`"))
            for name in devices where context.scenario.devices.first(where: { $0.name == name })?.pushToken == nil {
                throw a.error("device '\(name)' has no push token for the gateway to refuse")
            }
            let status = try a.child("status")?.int() ?? 410
            guard (400...599).contains(status) else { throw a.error("`status` is a provider error status such as 410 or 400") }
            kind = .gatewayReject(devices: devices, status: status)
        case "expect":
            kind = .expect(try Expectation.parseDevice(try arg(), context: context, extra: []))
        case "expect_server":
            kind = .expect(try Expectation.parseServer(try arg(), context: context))
        case "expect_pushes":
            kind = .expect(try Expectation.parsePushes(try arg()))
        default: // expect_ingest
            let a = try arg()
            try a.checkKeys(modules, what: "`expect_ingest`")
            kind = .expect(.ingest(a.json.objectValue ?? JSONObject()))
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
            let plain = !s.isEmpty && s.allSatisfy { $0.isLetter || $0.isNumber || "-_.+:/".contains($0) }
                && YAMLScalarCheck.staysString(s)
            return plain ? s : json.serializedString
        case .array(let a): return "[" + a.map(flow).joined(separator: ", ") + "]"
        case .object(let o): return "{" + o.pairs.map { "\($0.key): \(flow($0.value))" }.joined(separator: ", ") + "}"
        default: return json.serializedString
        }
    }
}

extension Expectation {
    static let stateKeys = ["screen", "required_update", "optional_update", "maintenance", "paused_modules", "queued", "sent",
                            "checks", "not_modified", "last_success", "etag", "polling"]
    static let screens = ["required_update", "maintenance", "optional_update", "none"]
    static let serverKeys = ["device", "checks", "ok", "not_modified", "errors", "last"]
    static let journalFields = ["status", "lifetime", "etag", "platform", "version"]
    static let pushKeys = ["count", "sent_at", "tokens", "platforms", "changes"]

    static func parseDevice(_ node: Node, context: StepContext, extra: [String]) throws(ScenarioError) -> Expectation {
        try node.checkKeys(["device"] + stateKeys + extra, what: "a device expectation")
        let devices = try context.devices(try node.required("device", in: "a device expectation"))
        var fields = JSONObject()
        for (k, v) in try node.object() where k != "device" && !extra.contains(k) {
            if k == "screen" {
                let s = try v.string()
                guard screens.contains(s) else { throw v.error(Suggestion.message("unknown screen '\(s)'", for: s, in: screens)) }
            }
            fields[k] = v.json
        }
        guard fields.count > 0 else { throw node.error("say what to expect, e.g. `screen: required_update` or `checks: 2`") }
        return .device(devices: devices, fields: fields)
    }

    static func parseServer(_ node: Node, context: StepContext) throws(ScenarioError) -> Expectation {
        try node.checkKeys(serverKeys, what: "`expect_server`")
        let devices = try node.child("device").map { n throws(ScenarioError) in try context.devices(n) }
        var counts = JSONObject()
        for key in ["checks", "ok", "not_modified", "errors"] { if let v = node.json[key] { counts[key] = v } }
        var last: JSONObject?
        if let l = node.child("last") {
            try l.checkKeys(journalFields, what: "`last`")
            last = l.json.objectValue
        }
        return .server(devices: devices, counts: counts, last: last)
    }

    static func parsePushes(_ node: Node) throws(ScenarioError) -> Expectation {
        try node.checkKeys(pushKeys, what: "`expect_pushes`")
        if let s = node.child("sent_at") {
            for item in s.list() {
                let text = try item.string()
                guard TimeSyntax.milliseconds(text) != nil else { throw item.error("`sent_at` lists times since time 0, such as `+60s`") }
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
