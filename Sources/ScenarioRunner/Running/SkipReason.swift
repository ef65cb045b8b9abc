import AdapterProtocol
import ScenarioLanguage

/// Why a scenario cannot run on an adapter, said per device and per step, with the spec's
/// reason where the spec gives one, and the catalogue rows the scenario covers (the rows this
/// adapter leaves unpinned).
///
/// ```swift
/// SkipReason.text(for: scenario, missing: ["push"], adapterPlatforms: ["web"])
/// // "device 'phone' has a push token and the adapter lacks push (web pages receive no silent push); covers check.silent-push"
/// ```
enum SkipReason {
    /// What the spec says about a capability an adapter may well lack for good reason.
    static func specReason(_ capability: String, adapterPlatforms: Set<String>?) -> String? {
        let webOnly = adapterPlatforms == ["web"]
        switch capability {
        case AdapterCapability.push.rawValue where webOnly:
            let names = AdapterVocabulary.pushPlatforms
            return "web pages receive no silent push; a device with push may run on "
                + names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        case AdapterCapability.offlineDeadline.rawValue:
            return "a deadline turns an update required offline on Android and Flutter only"
        default: return nil
        }
    }

    static func text(for scenario: Scenario, missing: [String], adapterPlatforms: Set<String>?) -> String {
        var parts: [String] = []
        if let adapterPlatforms, missing.contains(where: { $0.hasPrefix("platform:") }),
            let text = platformText(
                for: scenario,
                adapterPlatforms: adapterPlatforms,
                pushSaysWhy: missing.contains(AdapterCapability.push.rawValue)
            )
        {
            parts.append(text)
        }
        for capability in missing where !capability.hasPrefix("platform:") {
            let reason = specReason(capability, adapterPlatforms: adapterPlatforms).map { " (\($0))" } ?? ""
            let lacks = "the adapter lacks \(capability)\(reason)"
            let who = users(of: capability, in: scenario)
            parts.append(who.isEmpty ? lacks : "\(who.joined(separator: ", ")): \(lacks)")
        }
        var text = parts.joined(separator: "; ")
        if !scenario.covers.isEmpty { text += "; covers \(scenario.covers.joined(separator: ", "))" }
        return text
    }

    /// The devices no emulated platform can hold, each with every platform it may run on, what the
    /// adapter emulates, and why those devices are bound to their platforms: the scenario's
    /// `platform_reason` (the spec's words), or for a device with push, that web pages get none.
    /// "device 'tab' may run on web only; the adapter emulates android (why: …)"
    /// With `pushSaysWhy`, devices bound only by their push (any platform but the web) are left to
    /// the push capability's own words; nil when no device is left.
    static func platformText(for scenario: Scenario, adapterPlatforms: Set<String>, pushSaysWhy: Bool) -> String? {
        let pushPlatforms = AdapterVocabulary.pushPlatforms
        var groups: [(platforms: [String], devices: [String])] = []
        for device in scenario.devices {
            let acceptable = device.platformChoices ?? [device.platform]
            guard !acceptable.contains(where: adapterPlatforms.contains) else { continue }
            if pushSaysWhy, acceptable == pushPlatforms { continue }
            if let i = groups.firstIndex(where: { $0.platforms == acceptable }) {
                groups[i].devices.append(device.name)
            } else {
                groups.append((acceptable, [device.name]))
            }
        }
        let who = groups.map { group in
            let names =
                group.devices.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
                + (group.devices.count > 3 ? " and \(group.devices.count - 3) more" : "")
            let platforms =
                group.platforms.count == 1
                ? "\(group.platforms[0]) only"
                : group.platforms.dropLast().joined(separator: ", ") + " or "
                    + group.platforms[group.platforms.count - 1]
            return (group.devices.count == 1 ? "device \(names)" : "devices \(names)") + " may run on \(platforms)"
        }
        guard !groups.isEmpty else { return nil }
        let emulated = AdapterVocabulary.platforms.filter(adapterPlatforms.contains).joined(separator: ", ")
        let pushOnly = groups.allSatisfy { $0.platforms == pushPlatforms }
        let why =
            scenario.platformReason
            ?? (pushOnly ? "web pages receive no silent push" : "the scenario gives no `platform_reason`")
        return who.joined(separator: "; ") + "; the adapter emulates \(emulated) (why: \(why))"
    }

    /// The devices and steps that need `capability`, in words.
    static func users(of capability: String, in scenario: Scenario) -> [String] {
        var out: [String] = []
        /// "device 'a' runs on ios", "devices 'a', 'b' run on ios".
        func devices(_ names: [String], _ one: String, _ many: String) {
            guard !names.isEmpty else { return }
            let listed =
                names.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
                + (names.count > 3 ? " and \(names.count - 3) more" : "")
            out.append(names.count == 1 ? "device \(listed) \(one)" : "devices \(listed) \(many)")
        }
        if capability.hasPrefix("platform:") {
            let platform = String(capability.dropFirst("platform:".count))
            devices(
                scenario.devices.filter { $0.platform == platform }.map(\.name),
                "runs on \(platform)",
                "run on \(platform)"
            )
        } else if capability.hasPrefix("flavor:") {
            let flavor = String(capability.dropFirst("flavor:".count))
            devices(
                scenario.devices.filter { $0.flavor == flavor }.map(\.name),
                "is a \(flavor) app",
                "are \(flavor) apps"
            )
        } else if capability == AdapterCapability.push.rawValue {
            devices(scenario.devices.filter { $0.pushToken != nil }.map(\.name), "has a push token", "have push tokens")
        } else if capability == AdapterCapability.clockOffset.rawValue {
            devices(
                scenario.devices.filter { $0.clockOffsetSeconds != 0 }.map(\.name),
                "has a wrong clock",
                "have wrong clocks"
            )
        }
        let steps = scenario.steps.enumerated().filter { $0.element.action.command?.capability?.rawValue == capability }
        if let first = steps.first {
            out.append(
                "step \(first.offset + 1) (\(first.element.text))"
                    + (steps.count > 1 ? " and \(steps.count - 1) more" : "")
            )
        }
        if scenario.needs.contains(capability) { out.append("`needs: [\(capability)]`") }
        return out
    }
}
