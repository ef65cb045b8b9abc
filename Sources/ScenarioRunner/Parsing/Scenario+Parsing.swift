import Clock
import JSON
import YAML

extension Scenario {
    static let topKeys = ["name", "description", "tags", "covers", "needs", "project", "rules", "devices", "steps"]
    static let deviceKeys = ["platform", "flavor", "app_version", "build", "sdk", "sdk_version", "push", "push_token",
                             "enabled", "clock_offset", "storage", "count", "matrix"]
    static let platforms = ["ios", "android", "macos", "web"]
    static let flavors = ["native", "flutter"]

    /// Reads a scenario from YAML (or JSON) bytes; every problem is a ``ScenarioError`` with
    /// `file:line:column`. `catalogue`, when given, checks the `covers` ids.
    public static func parse(_ bytes: [UInt8], file: String, catalogue: SpecCatalogue? = nil) throws(ScenarioError) -> Scenario {
        let document: YAMLDocument
        do {
            document = try YAML.parse(bytes)
        } catch {
            throw ScenarioError(error.message, at: SourceLocation(file: file, mark: error.mark))
        }
        let root = Node(document: document, file: file)
        guard case .object = root.json else {
            throw root.error("a scenario is a mapping with `name`, `devices` and `steps`, not a \(root.json.typeName)")
        }
        try root.checkKeys(topKeys, what: "a scenario")
        let name = try root.required("name", in: "a scenario").string()
        var scenario = Scenario(file: file, name: name, description: try root.child("description")?.string(),
                                tags: [], covers: [], needs: [], project: "demo", rules: [], devices: [], groups: [:], steps: [])
        if let tags = root.child("tags") { scenario.tags = try tags.list().map { n throws(ScenarioError) in try n.string() } }
        if let needs = root.child("needs") { scenario.needs = try needs.list().map { n throws(ScenarioError) in try n.string() } }
        if let project = root.child("project") { scenario.project = try project.string() }
        if let covers = root.child("covers") {
            for node in covers.list() {
                let id = try node.string()
                if let catalogue, catalogue.row(id) == nil {
                    throw node.error(Suggestion.message("`covers` names '\(id)', which is not in the spec catalogue", for: id, in: catalogue.rows.map(\.id)))
                }
                scenario.covers.append(id)
            }
        }
        if let rules = root.child("rules") {
            for node in try rules.array() {
                let rule = try RuleSpec.parse(node)
                if scenario.rules.contains(where: { $0.name == rule.name }) {
                    throw node.error("two rules are named '\(rule.name)'")
                }
                scenario.rules.append(rule)
            }
        }
        let devices = try root.required("devices", in: "a scenario")
        for (key, node) in try devices.object("`devices`") {
            let expanded = try DeviceSpec.parse(name: key, node)
            for d in expanded where scenario.devices.contains(where: { $0.name == d.name }) {
                throw node.keyError("two devices are named '\(d.name)'")
            }
            scenario.devices += expanded
            scenario.groups[key] = expanded.map(\.name)
        }
        scenario.groups["all"] = scenario.devices.map(\.name)
        var tokens: [String: String] = [:]
        for d in scenario.devices {
            if let t = d.pushToken {
                if let other = tokens[t] { throw devices.error("devices '\(other)' and '\(d.name)' share push token '\(t)'") }
                tokens[t] = d.name
            }
        }
        var context = StepContext(scenario: scenario, ruleNames: Set(scenario.rules.map(\.name)))
        for node in try root.required("steps", in: "a scenario").array("`steps`") {
            scenario.steps.append(try Step.parse(node, context: &context))
        }
        return scenario
    }
}

extension Node {
    func keyError(_ message: String) -> ScenarioError { ScenarioError(message, at: keyLocation) }
}

extension RuleSpec {
    static let types = ["required_update", "optional_update", "recommended_update", "maintenance", "sdk_switch"]
    static let timeFields = ["starts_at", "ends_at", "becomes_required_on"]

    /// `{name: block, type: required_update, below: "2.4.0", …}`: `name` is the scenario's handle,
    /// the rest is the admin API body. Times may be relative to time 0 (`+2h`, `-10m`).
    static func parse(_ node: Node) throws(ScenarioError) -> RuleSpec {
        let pairs = try node.object("a rule")
        let name = try node.required("name", in: "a rule (give it a `name` to refer to it in steps)").string()
        let type = try node.required("type", in: "a rule").string()
        guard types.contains(type) else {
            throw node.child("type")?.error(Suggestion.message("unknown rule type '\(type)'", for: type, in: types)) ?? node.error("bad type")
        }
        var body: [(String, JSON)] = []
        let rejected = try node.child("rejected")?.bool() ?? false
        for (key, value) in pairs where key != "name" && key != "rejected" {
            if timeFields.contains(key) { try checkTime(value) }
            body.append((key, value.json))
        }
        return RuleSpec(name: name, body: .object(body), location: node.location, expectRejected: rejected)
    }

    /// Relative (`+2h`) or absolute (RFC 3339) time: checked here, resolved when the scenario runs.
    static func checkTime(_ node: Node) throws(ScenarioError) {
        let text = try node.string()
        if TimeSyntax.milliseconds(text) != nil || Instant(rfc3339: text) != nil { return }
        throw node.error("`\(node.name)` must be a time relative to time 0 (`+2h`, `-10m`) or RFC 3339 (`2026-12-02T11:00:00.000Z`), not '\(text)'")
    }
}


extension DeviceSpec {
    /// One entry of `devices`: a single device, a fleet (`count: N`, lists cycle over the fleet)
    /// or a matrix (`matrix: {platform: [ios, android]}`: one device per combination).
    static func parse(name: String, _ node: Node) throws(ScenarioError) -> [DeviceSpec] {
        try node.checkKeys(Scenario.deviceKeys, what: "device '\(name)'")
        let count = try node.child("count")?.int()
        let matrix = node.child("matrix")
        if let count, count < 1 || count > 100_000 { throw node.child("count")!.error("`count` must be 1 to 100000") }
        if count != nil, matrix != nil { throw node.error("device '\(name)' has both `count` and `matrix`; use one") }
        if let matrix {
            var combos: [[(String, Node)]] = [[]]
            for (key, values) in try matrix.object("`matrix`") {
                guard Scenario.deviceKeys.contains(key), key != "count", key != "matrix" else {
                    throw values.keyError(Suggestion.message("`matrix` cannot vary '\(key)'", for: key, in: Scenario.deviceKeys))
                }
                let list = try values.array("each `matrix` entry")
                guard !list.isEmpty else { throw values.error("`matrix.\(key)` is empty") }
                combos = combos.flatMap { combo in list.map { combo + [(key, $0)] } }
            }
            var out: [DeviceSpec] = []
            for combo in combos {
                var overrides: [String: Node] = [:]
                var suffix: [String] = []
                for (k, v) in combo {
                    overrides[k] = v
                    suffix.append(v.json.stringValue ?? v.json.serializedString)
                }
                var deviceName = name
                if name.contains("{") {
                    for (k, v) in combo { deviceName = deviceName.replacing("{\(k)}", with: v.json.stringValue ?? v.json.serializedString) }
                } else {
                    deviceName = ([name] + suffix).joined(separator: "-")
                }
                out.append(try single(name: deviceName, node, overrides: overrides, index: 0))
            }
            return out
        }
        guard let count else { return [try single(name: name, node, overrides: [:], index: nil)] }
        let width = String(count).count
        return try (0..<count).map { i throws(ScenarioError) in
            let number = String(i + 1)
            let padded = String(repeating: "0", count: width - number.count) + number
            return try single(name: "\(name)-\(padded)", node, overrides: [:], index: i)
        }
    }

    /// A token shaped like the provider's: 64 hex digits for APNs (derived from the name, so
    /// runs repeat), `fcm-<name>` for FCM.
    static func defaultToken(name: String, platform: String) -> String {
        guard platform == "ios" || platform == "macos" else { return "fcm-\(name)" }
        var hex = ""
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for round in 0..<4 {
            for b in (name + "#\(round)").utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            let digits = String(h, radix: 16)
            hex += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex
    }

    private static func single(name: String, _ node: Node, overrides: [String: Node], index: Int?) throws(ScenarioError) -> DeviceSpec {
        /// A field's node: the matrix override, else the entry's value; a fleet cycles through lists.
        func field(_ key: String) throws(ScenarioError) -> Node? {
            if let o = overrides[key] { return o }
            guard let n = node.child(key) else { return nil }
            if let index, case .array = n.json {
                let items = try n.array()
                guard !items.isEmpty else { throw n.error("`\(key)` is an empty list") }
                return items[index % items.count]
            }
            return n
        }
        func text(_ key: String) throws(ScenarioError) -> String? {
            guard let n = try field(key), !n.json.isNull else { return nil }
            return try n.string()
        }
        guard let platformNode = try field("platform") else { throw node.error("device '\(name)' needs `platform` (\(Scenario.platforms.joined(separator: ", ")))") }
        let platform = try platformNode.string()
        guard Scenario.platforms.contains(platform) else {
            throw platformNode.error(Suggestion.message("unknown platform '\(platform)'", for: platform, in: Scenario.platforms))
        }
        let flavor = try text("flavor") ?? "native"
        guard Scenario.flavors.contains(flavor) else {
            throw (try field("flavor"))?.error(Suggestion.message("unknown flavor '\(flavor)'", for: flavor, in: Scenario.flavors)) ?? node.error("bad flavor")
        }
        // `app_version` absent: 1.0.0; written as null: a device without a version.
        let versionNode = try field("app_version")
        let appVersion: String? = versionNode == nil ? "1.0.0" : try text("app_version")
        let sdk = try text("sdk") ?? (flavor == "flutter" ? "flutter" : ["ios": "swift", "macos": "swift", "android": "kotlin", "web": "js"][platform] ?? "swift")
        let sdkVersionNode = try field("sdk_version")
        let sdkVersion: String? = sdkVersionNode == nil ? "1.5.0" : try text("sdk_version")
        var pushToken = try text("push_token")
        if let push = try field("push"), try push.bool(), pushToken == nil { pushToken = defaultToken(name: name, platform: platform) }
        if pushToken != nil, platform == "web" {
            throw node.error("device '\(name)' is on the web, which has no push; drop `push`/`push_token`")
        }
        var offset: Int64 = 0
        if let o = try field("clock_offset") {
            if let seconds = o.json.intValue {
                offset = Int64(seconds)
            } else if let s = o.json.stringValue, let ms = TimeSyntax.milliseconds(s) {
                offset = ms / 1000
            } else {
                throw o.error("`clock_offset` must be seconds or a duration such as `-2h` or `+90s`")
            }
        }
        return DeviceSpec(name: name, platform: platform, flavor: flavor, appVersion: appVersion, build: try text("build"),
                          sdk: sdk, sdkVersion: sdkVersion, pushToken: pushToken,
                          enabled: try field("enabled")?.bool() ?? true, clockOffsetSeconds: offset, storage: try text("storage"))
    }
}
