import AdapterProtocol
import JSON
import ScenarioLanguage

/// What an adapter's `hello` says it can emulate, and what that means for each scenario: run it
/// (its devices with platform choices put on a platform the adapter emulates) or skip it, with
/// the reason.
///
/// ```swift
/// let abilities = try AdapterAbilities(hello: try environment.hello())
/// switch abilities.plan(scenario) {
/// case .run(let narrowed): …          // every capability it needs is listed
/// case .skip(let outcome): …          // outcome.status is .skipped(reason)
/// }
/// ```
public struct AdapterAbilities: Sendable {
    /// `name version` from `hello`, for reports.
    public var name: String
    /// The same, apart (results files, the conformance matrix).
    public var identity: AdapterIdentity
    public var capabilities: Set<String>
    /// The platforms the adapter lists; nil when it lists none (it emulates every one: the Swift host).
    public var emulatedPlatforms: Set<String>?

    public enum Plan: Sendable {
        case run(Scenario)
        case skip(ScenarioOutcome)
    }

    /// Throws when `hello` passes a bound (``AdapterHello``): its sizes are the adapter's.
    public init(hello answer: JSON) throws(AdapterFailure) {
        let hello = try AdapterHello(answer)
        capabilities = hello.capabilities
        name = hello.displayName
        identity = AdapterIdentity(hello: answer)
        let platforms = Set(
            capabilities.filter { $0.hasPrefix("platform:") }.map { String($0.dropFirst("platform:".count)) }
        )
        emulatedPlatforms = platforms.isEmpty ? nil : platforms
    }

    public func plan(_ written: Scenario) -> Plan {
        // Devices written with several platforms run on one the adapter emulates.
        let scenario = written.narrowed(toPlatforms: emulatedPlatforms)
        let missing = Self.missing(scenario.requiredCapabilities, in: capabilities)
        guard missing.isEmpty else {
            var outcome = SuiteRunner.broken(scenario, "")
            outcome.status = .skipped(
                SkipReason.text(for: scenario, missing: missing, adapterPlatforms: emulatedPlatforms)
            )
            // Each capability with the spec's reason; the platforms together, with the
            // scenario's `platform_reason` (reports group skips by these words).
            let platforms = missing.filter { $0.hasPrefix("platform:") }.map { $0.dropFirst("platform:".count) }
            outcome.skippedFor =
                (platforms.isEmpty
                    ? []
                    : [
                        "platform:" + platforms.joined(separator: ", ")
                            + (scenario.platformReason.map { " (\($0))" } ?? "")
                    ])
                + missing.filter { !$0.hasPrefix("platform:") }.map { capability in
                    capability
                        + (SkipReason.specReason(capability, adapterPlatforms: emulatedPlatforms).map { " (\($0))" }
                            ?? "")
                }
            return .skip(outcome)
        }
        return .run(scenario)
    }

    /// What these capabilities will run of `scenarios`, with why the rest are skipped, briefly:
    /// "runs 31 of 34 bundled scenarios; skips 3 (web pages receive no silent push: 2; …)".
    public func summary(of scenarios: [Scenario]) -> String {
        var reasons: [(reason: String, count: Int)] = []
        for scenario in scenarios {
            guard case .skip = plan(scenario) else { continue }
            let reason = shortReason(scenario.narrowed(toPlatforms: emulatedPlatforms))
            if let i = reasons.firstIndex(where: { $0.reason == reason }) {
                reasons[i].count += 1
            } else {
                reasons.append((reason, 1))
            }
        }
        let skipped = reasons.reduce(0) { $0 + $1.count }
        var text = "runs \(scenarios.count - skipped) of \(scenarios.count) bundled scenarios"
        if skipped > 0 {
            let listed = reasons.map { $0.count == 1 ? $0.reason : "\($0.reason): \($0.count)" }
            text += "; skips \(skipped) (\(listed.joined(separator: "; ")))"
        }
        return text
    }

    /// The spec's reason for a skip, in a few words: the scenario's `platform_reason` when a device
    /// cannot be placed, else what the spec says of the first capability lacking, else its name.
    func shortReason(_ scenario: Scenario) -> String {
        let missing = Self.missing(scenario.requiredCapabilities, in: capabilities)
        if missing.contains(AdapterCapability.push.rawValue), emulatedPlatforms == ["web"] {
            return "web pages receive no silent push"
        }
        if missing.contains(where: { $0.hasPrefix("platform:") }), let reason = scenario.platformReason {
            return reason
        }
        let first = missing.first ?? ""
        return SkipReason.specReason(first, adapterPlatforms: emulatedPlatforms) ?? "the adapter lacks \(first)"
    }

    /// Capabilities the scenario needs and the adapter lacks. An adapter that lists no
    /// `platform:` (or `flavor:`) capability at all is taken to emulate every platform (flavor).
    static func missing(_ needed: [String], in caps: Set<String>) -> [String] {
        let listsPlatforms = caps.contains { $0.hasPrefix("platform:") }
        let listsFlavors = caps.contains { $0.hasPrefix("flavor:") }
        return needed.filter { need in
            if need.hasPrefix("platform:"), !listsPlatforms { return false }
            if need.hasPrefix("flavor:"), !listsFlavors { return false }
            return !caps.contains(need)
        }
    }
}
