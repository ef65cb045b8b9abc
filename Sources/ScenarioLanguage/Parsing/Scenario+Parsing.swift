import AdapterProtocol
import Clock
import JSON
import ReleaseControl
import YAML

extension Scenario {
    /// The first name in `names` given twice, or nil.
    static func firstRepeated(_ names: [String]) -> String? {
        var seen = Set<String>(minimumCapacity: names.count)
        return names.first { !seen.insert($0).inserted }
    }

    /// Why the `matrix` of device entry `key` names two devices `twin`: its name template
    /// leaves out a key it varies, or one of its lists repeats a value.
    static func repeatedNameMessage(_ key: String, _ node: Node, twin: String) -> String {
        let varied = node.child("matrix")?.json.objectValue?.keys.map { $0 } ?? []
        let missing = key.contains("{") ? varied.filter { !key.contains("{\($0)}") } : []
        let why =
            missing.isEmpty
            ? "a `matrix` list repeats a value"
            : "its name leaves out \(missing.map { "{\($0)}" }.joined(separator: ", ")), which the `matrix` varies"
        return "device '\(key)' names two of its devices '\(twin)': \(why)"
    }

    static let topKeys = [
        "requires_runner", "name", "description", "tags", "covers", "needs", "platform", "platform_reason", "project",
        "rules", "devices",
        "steps",
    ]
    static let deviceKeys = [
        "platform", "flavor", "app_version", "build", "sdk", "sdk_version", "push", "push_token",
        "enabled", "clock_offset", "storage", "count", "matrix",
    ]
    static let platforms = AdapterVocabulary.platforms
    static let flavors = AdapterVocabulary.flavors

    /// Reads a scenario from YAML (or JSON) bytes and reports every problem of the file at once,
    /// each as a ``ScenarioError`` with `file:line:column`. `covers` ids are checked against
    /// `catalogue` (the built-in one unless a suite brings its own).
    public static func parse(
        _ bytes: [UInt8],
        file: String,
        catalogue: SpecCatalogue = .builtIn
    ) throws(ScenarioFileErrors) -> Scenario {
        let document: YAMLDocument
        do {
            document = try YAML.parse(bytes)
        } catch {
            throw ScenarioFileErrors([ScenarioError(error.message, at: SourceLocation(file: file, mark: error.mark))])
        }
        let diagnostics = Diagnostics()
        let root = Node(document: document, file: file, diagnostics: diagnostics)
        let scenario = diagnostics.attempt { () throws(ScenarioError) in try parse(root, catalogue: catalogue) }
        guard let scenario, diagnostics.errors.isEmpty else { throw ScenarioFileErrors(diagnostics.sorted) }
        return scenario
    }

    /// `requires_runner: 0.3.0`: the oldest lerix-mock release that runs this file.
    static func checkRequiredRunner(_ node: Node?) throws(ScenarioError) {
        guard let node else { return }
        let written: String
        switch node.json {
        case .string(let text): written = text
        case .number: written = node.json.serializedString
        case .array: throw node.error("requires_runner is a release such as \"\(Release.version)\", not a list")
        case .object: throw node.error("requires_runner is a release such as \"\(Release.version)\", not a mapping")
        default:
            throw node.error(
                "requires_runner is a release such as \"\(Release.version)\", not \(node.json.serializedString)"
            )
        }
        guard let required = ReleaseVersion(written) else {
            throw node.error(
                "requires_runner is a release written MAJOR.MINOR.PATCH (such as \"\(Release.version)\"), not '\(written)'"
            )
        }
        guard required <= Release.current else {
            throw node.error(
                "this file needs lerix-mock \(required) or newer (requires_runner); this runner is lerix-mock \(Release.version): upgrade lerix-mock to run it"
            )
        }
    }

    /// Each part is read on its own, so a mistake in one key, rule, device or step does not
    /// hide those in the others; only a file that is not a mapping stops at once.
    private static func parse(_ root: Node, catalogue: SpecCatalogue) throws(ScenarioError) -> Scenario {
        guard case .object = root.json else {
            throw root.error("a scenario is a mapping with `name`, `devices` and `steps`, not a \(root.json.typeName)")
        }
        // First, and alone: a file written for a newer runner may hold keys and steps this one
        // does not know, and those are not mistakes to list.
        try checkRequiredRunner(root.child("requires_runner"))
        try root.checkKeys(topKeys, what: "a scenario")
        let name =
            root.attempt { () throws(ScenarioError) in try root.required("name", in: "a scenario").string() }
            ?? root.file
        var scenario = Scenario(file: root.file, name: name)
        scenario.description =
            root.attempt { () throws(ScenarioError) in try root.child("description")?.string() } ?? nil
        scenario.platformReason =
            root.attempt { () throws(ScenarioError) in try root.child("platform_reason")?.string() } ?? nil
        scenario.tags =
            root.child("tags")?.list().compactMap { n in n.attempt { () throws(ScenarioError) in try n.string() } }
            ?? []
        for node in root.child("needs")?.list() ?? [] {
            guard let need = node.attempt({ () throws(ScenarioError) in try node.string() }) else { continue }
            // A misspelt capability would make every adapter lack it: the scenario skipped, never run.
            let known = AdapterCapability.all.map(\.rawValue)
            if !known.contains(need) {
                node.diagnostics.record(
                    node.error(Suggestion.message("unknown adapter capability '\(need)'", for: need, in: known))
                )
            }
            scenario.needs.append(need)
        }
        if let project = root.child("project"),
            let p = project.attempt({ () throws(ScenarioError) in try project.string() })
        {
            scenario.project = p
        }
        for node in root.child("covers")?.list() ?? [] {
            guard let id = node.attempt({ () throws(ScenarioError) in try node.string() }) else { continue }
            if catalogue.row(id) == nil {
                node.diagnostics.record(
                    node.error(
                        Suggestion.message(
                            "`covers` names '\(id)', which is not in the spec catalogue\(catalogue.origin)",
                            for: id,
                            in: catalogue.rows.map(\.id)
                        )
                    )
                )
            }
            scenario.covers.append(id)
        }
        var context = StepContext(scenario: scenario)
        if let rules = root.child("rules"),
            let list = root.attempt({ () throws(ScenarioError) in try rules.array("`rules`") })
        {
            for node in list {
                guard let rule = node.attempt({ () throws(ScenarioError) in try RuleSpec.parse(node) }) else {
                    continue
                }
                if context.ruleNames.contains(rule.name) {
                    node.diagnostics.record(node.error("two rules are named '\(rule.name)'"))
                    continue
                }
                if rule.expectRejected {
                    node.diagnostics.record(
                        (node.child("rejected") ?? node).keyError(
                            "`rejected` belongs on a `create_rule` step; `rules` are created before time 0 and must be accepted"
                        )
                    )
                    continue
                }
                context.define(rule)
                scenario.rules.append(rule)
            }
        }
        if let devices = root.attempt({ () throws(ScenarioError) in try root.required("devices", in: "a scenario") }),
            let entries = devices.attempt({ () throws(ScenarioError) in try devices.object("`devices`") })
        {
            var taken = Set<String>()  // a set: fleets of 100,000 devices are checked in linear time
            for (key, node) in entries {
                guard
                    let expanded = node.attempt({ () throws(ScenarioError) in
                        try DeviceSpec.parse(name: key, node, scenarioPlatform: root.child("platform"))
                    })
                else {
                    scenario.groups[key] = []  // still a known name, so steps naming it add no second error
                    context.brokenDevices.insert(key)
                    continue
                }
                // Names read field by field (a closure, not a key path, which copies each whole
                // device first): a fleet entry holds up to 100,000.
                let names = expanded.map { $0.name }
                let clash =
                    names.first(where: taken.contains).map { "two devices are named '\($0)'" }
                    // Only a matrix can repeat a name within its entry (a fleet numbers its devices).
                    ?? (node.child("matrix") == nil ? nil : Self.firstRepeated(names)).map {
                        Self.repeatedNameMessage(key, node, twin: $0)
                    }
                if let clash {
                    node.diagnostics.record(node.keyError(clash))
                    scenario.groups[key] = []  // as above: one mistake, one error
                    context.brokenDevices.insert(key)
                    continue
                }
                taken.formUnion(names)
                scenario.devices += expanded
                scenario.groups[key] = names
            }
            var tokens: [String: String] = [:]
            tokens.reserveCapacity(scenario.devices.count)
            for index in scenario.devices.indices {
                guard let t = scenario.devices[index].pushToken else { continue }
                let name = scenario.devices[index].name
                if let other = tokens.updateValue(name, forKey: t) {
                    devices.diagnostics.record(
                        devices.error("devices '\(other)' and '\(name)' share push token '\(t)'")
                    )
                }
            }
        }
        scenario.groups["all"] = scenario.devices.map { $0.name }
        context.scenario = scenario
        if let steps = root.attempt({ () throws(ScenarioError) in
            try root.required("steps", in: "a scenario").array("`steps`")
        }) {
            for node in steps {
                if let step = node.attempt({ () throws(ScenarioError) in try Step.parse(node, context: &context) }) {
                    scenario.steps.append(step)
                }
            }
            // A pass must have been able to be a fail (Verdict). Checked last, when the rest of the file
            // is sound: a file with other mistakes is an error already, and never a pass.
            if root.diagnostics.errors.isEmpty, !scenario.steps.contains(where: { Verdict.canFail($0.action) }),
                let stepsNode = root.child("steps")
            {
                root.diagnostics.record(
                    ScenarioError(
                        "no step of this scenario can fail, so it would pass whatever the SDK did: add \(Verdict.failingSteps)",
                        at: stepsNode.keyLocation
                    )
                )
            }
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
    /// Keys of a rule entry that are the runner's, not the admin API's.
    static let runnerKeys = ["name", "rejected"]

    /// `{name: block, type: required_update, below: "2.4.0", …}`: `name` is the scenario's handle,
    /// the rest is the admin API body. Times may be relative to time 0 (`+2h`, `-10m`). Unless
    /// `rejected: true`, the body is checked here by the server's own rule decoding, so a typo
    /// is reported with the file's other mistakes, at its line, before anything runs.
    static func parse(_ node: Node) throws(ScenarioError) -> RuleSpec {
        let pairs = try node.object("a rule")
        let earlier = node.diagnostics.errors.count
        let name = try node.required("name", in: "a rule (give it a `name` to refer to it in steps)").string()
        let rejected =
            node.attempt { () throws(ScenarioError) -> Bool in try node.child("rejected")?.bool() ?? false } ?? false
        if node.child("type") == nil {
            node.diagnostics.record(node.error("rule '\(name)' needs `type` (\(types.joined(separator: ", ")))"))
        } else if let typeNode = node.child("type") {
            _ = node.attempt { () throws(ScenarioError) in
                let type = try typeNode.string()
                guard types.contains(type) else {
                    throw typeNode.error(Suggestion.message("unknown rule type '\(type)'", for: type, in: types))
                }
            }
        }
        var body: [(String, JSON)] = []
        for (key, value) in pairs where !runnerKeys.contains(key) {
            if timeFields.contains(key) { _ = value.attempt { () throws(ScenarioError) in try checkTime(value) } }
            body.append((key, value.json))
        }
        let rule = RuleSpec(name: name, body: .object(body), location: node.location, expectRejected: rejected)
        // The server's verdict only on a body the runner found sound, so one mistake is not reported twice.
        if !rejected, node.diagnostics.errors.count == earlier { checkWithServerRules(rule.body, name: name, at: node) }
        return rule
    }

    /// Relative (`+2h`), absolute (RFC 3339) or `null` (no such time): checked here, resolved when the scenario runs.
    static func checkTime(_ node: Node) throws(ScenarioError) {
        if node.json.isNull { return }
        let text = try node.string()
        if TimeSyntax.milliseconds(text) != nil || Instant(rfc3339: text) != nil { return }
        throw node.error(
            "`\(node.name)` must be a time relative to time 0 (`+2h`, `-10m`) or RFC 3339 (`2026-12-02T11:00:00.000Z`), not '\(text)'"
        )
    }

    /// `body` with relative times placed after `t0`.
    package static func resolvingTimes(_ body: JSON, t0: Instant) -> JSON {
        guard case .object(var o) = body else { return body }
        for key in timeFields {
            if let text = o[key]?.stringValue, Instant(rfc3339: text) == nil, let ms = TimeSyntax.milliseconds(text) {
                o[key] = .string(t0.adding(milliseconds: ms).rfc3339)
            }
        }
        return .object(o)
    }

    /// Records each problem the server's rule decoding finds in `body` (relative times resolved
    /// against any time 0: the checks compare times with each other), at the field it names.
    static func checkWithServerRules(_ body: JSON, name: String, at node: Node) {
        guard body["type"]?.stringValue.map(types.contains) == true else { return }  // reported above
        do {
            _ = try RuleBody.decode(resolvingTimes(body, t0: Scenario.inProcessStart))
        } catch {
            for problem in error.problems {
                let mark =
                    node.exact
                    ? node.document.keyMark(for: problem.pointer, under: node.place)
                    : node.document.mark(at: node.place)
                node.diagnostics.record(
                    ScenarioError(
                        "rule '\(name)' would be refused by the server: \(problem)",
                        at: SourceLocation(file: node.file, mark: mark)
                    )
                )
            }
        }
    }
}

extension DeviceSpec {
    /// One entry of `devices`: a single device, a fleet (`count: N`, lists cycle over the fleet)
    /// or a matrix (`matrix: {platform: [ios, android]}`: one device per combination).
    static func parse(name: String, _ node: Node, scenarioPlatform: Node? = nil) throws(ScenarioError) -> [DeviceSpec] {
        try node.checkKeys(Scenario.deviceKeys, what: "device '\(name)'")
        let count = try node.child("count")?.int()
        let matrix = node.child("matrix")
        if let count, count < 1 || count > 100_000 { throw node.child("count")!.error("`count` must be 1 to 100000") }
        if count != nil, matrix != nil { throw node.error("device '\(name)' has both `count` and `matrix`; use one") }
        if let matrix {
            var combos: [[(String, Node)]] = [[]]
            for (key, values) in try matrix.object("`matrix`") {
                guard Scenario.deviceKeys.contains(key), key != "count", key != "matrix" else {
                    throw values.keyError(
                        Suggestion.message("`matrix` cannot vary '\(key)'", for: key, in: Scenario.deviceKeys)
                    )
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
                    for (k, v) in combo {
                        deviceName = deviceName.replacing("{\(k)}", with: v.json.stringValue ?? v.json.serializedString)
                    }
                } else {
                    deviceName = ([name] + suffix).joined(separator: "-")
                }
                out.append(
                    try single(
                        name: deviceName,
                        node,
                        overrides: overrides,
                        index: 0,
                        scenarioPlatform: scenarioPlatform
                    )
                )
            }
            return out
        }
        guard let count else {
            return [try single(name: name, node, overrides: [:], index: nil, scenarioPlatform: scenarioPlatform)]
        }
        let width = String(count).utf8.count
        // A fleet's devices differ only in their names and in where each list stands in its
        // cycle: each combination is read once, and its devices are that reading renamed. A
        // reading that records a problem is not reused (the problem names its device).
        let cycles = node.json.objectValue?.pairs.compactMap { $0.value.arrayValue.map { max($0.count, 1) } } ?? []
        var readings: [[Int]: DeviceSpec] = [:]
        return try (0..<count).map { i throws(ScenarioError) in
            let number = String(i + 1)
            let padded = String(repeating: "0", count: width - number.utf8.count) + number
            let deviceName = name + "-" + padded
            let combination = cycles.map { i % $0 }
            if let read = readings[combination] { return read.named(deviceName) }
            let problems = node.diagnostics.errors.count
            let device = try single(
                name: deviceName,
                node,
                overrides: [:],
                index: i,
                scenarioPlatform: scenarioPlatform
            )
            if node.diagnostics.errors.count == problems { readings[combination] = device }
            return device
        }
    }

    /// This reading of a fleet entry as another of its devices: the name, and the default push
    /// token that follows it.
    func named(_ name: String) -> DeviceSpec {
        var d = self
        d.name = name
        if defaultPushToken { d.pushToken = Self.defaultToken(name: name, platform: platform) }
        return d
    }

    private static func single(
        name: String,
        _ node: Node,
        overrides: [String: Node],
        index: Int?,
        scenarioPlatform: Node?
    ) throws(ScenarioError) -> DeviceSpec {
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
        /// A field read on its own: its problem is recorded and `fallback` used, so the entry's
        /// other fields are still checked.
        func checked<T>(_ fallback: T, _ read: () throws(ScenarioError) -> T) -> T { node.attempt(read) ?? fallback }

        // Portable by default: a device that names no platform takes the scenario's `platform`,
        // and without one it may run on any (a fleet's own list cycles instead, as every list does).
        let wantsPush = (try? field("push")?.bool()) == true || (try? text("push_token")) != nil
        let (platform, choices) = try platformSet(try field("platform") ?? scenarioPlatform, wantsPush: wantsPush)
        let flavor = checked("native") { () throws(ScenarioError) -> String in
            let flavor = try text("flavor") ?? "native"
            guard Scenario.flavors.contains(flavor) else {
                throw (try field("flavor"))?.error(
                    Suggestion.message("unknown flavor '\(flavor)'", for: flavor, in: Scenario.flavors)
                ) ?? node.error("bad flavor")
            }
            return flavor
        }
        // `app_version` absent: 1.0.0; written as null: a device without a version.
        let appVersion = checked("1.0.0") { () throws(ScenarioError) -> String? in
            try field("app_version") == nil ? "1.0.0" : try text("app_version")
        }
        let defaultSDK = Self.defaultSDK(platform: platform, flavor: flavor)
        // `sdk` absent: the platform's; written as null: an app that sends none.
        let sdkWritten = (try? field("sdk")).flatMap { $0 } != nil
        let sdk = checked(defaultSDK) { () throws(ScenarioError) -> String? in
            try field("sdk") == nil ? defaultSDK : try text("sdk")
        }
        let sdkVersion = checked("1.5.0") { () throws(ScenarioError) -> String? in
            try field("sdk_version") == nil ? "1.5.0" : try text("sdk_version")
        }
        var pushToken = checked(nil) { () throws(ScenarioError) -> String? in try text("push_token") }
        var defaultPushToken = false
        if checked(false, { () throws(ScenarioError) -> Bool in try field("push")?.bool() ?? false }), pushToken == nil
        {
            pushToken = defaultToken(name: name, platform: platform)
            defaultPushToken = true
        }
        if pushToken != nil, platform == "web" || choices?.contains("web") == true {
            node.diagnostics.record(
                node.error("device '\(name)' is on the web, which has no push; drop `push`/`push_token`")
            )
        }
        let offset = checked(Int64(0)) { () throws(ScenarioError) -> Int64 in
            guard let o = try field("clock_offset") else { return 0 }
            if let seconds = o.json.intValue { return Int64(seconds) }
            if let s = o.json.stringValue, let ms = TimeSyntax.milliseconds(s) { return ms / 1000 }
            throw o.error("`clock_offset` must be seconds or a duration such as `-2h` or `+90s`")
        }
        return DeviceSpec(
            name: name,
            platform: platform,
            flavor: flavor,
            appVersion: appVersion,
            build: checked(nil) { () throws(ScenarioError) -> String? in try text("build") },
            sdk: sdk,
            sdkVersion: sdkVersion,
            pushToken: pushToken,
            enabled: checked(true) { () throws(ScenarioError) -> Bool in try field("enabled")?.bool() ?? true },
            clockOffsetSeconds: offset,
            storage: checked(nil) { () throws(ScenarioError) -> String? in try text("storage") },
            platformChoices: choices,
            sdkWritten: sdkWritten,
            defaultPushToken: defaultPushToken
        )
    }

    /// The platform a device starts on and the set it may run on (nil when it is one): `ios`, a
    /// list (a set, kept in the vocabulary's order: ios, android, macos, web), `any`, or nothing
    /// written (any). Web pages have no silent push, so `any` for a device with push leaves out the web.
    private static func platformSet(_ node: Node?, wantsPush: Bool) throws(ScenarioError) -> (String, [String]?) {
        let any = wantsPush ? AdapterVocabulary.pushPlatforms : Scenario.platforms
        guard let node else { return (any[0], any) }
        if case .array = node.json {
            var list: [String] = []
            for item in try node.array("`platform`") {
                let p = try item.string()
                guard Scenario.platforms.contains(p) else {
                    throw item.error(Suggestion.message("unknown platform '\(p)'", for: p, in: Scenario.platforms))
                }
                guard !list.contains(p) else { throw item.error("`platform` lists '\(p)' twice") }
                list.append(p)
            }
            guard !list.isEmpty else {
                throw node.error("`platform` is an empty list: name the platforms the device may run on")
            }
            let set = Scenario.platforms.filter(list.contains)
            return (set[0], set.count > 1 ? set : nil)
        }
        if node.json.stringValue == "any" { return (any[0], any) }
        let platform = try node.string()
        guard Scenario.platforms.contains(platform) else {
            throw node.error(
                Suggestion.message("unknown platform '\(platform)'", for: platform, in: Scenario.platforms + ["any"])
            )
        }
        return (platform, nil)
    }
}
