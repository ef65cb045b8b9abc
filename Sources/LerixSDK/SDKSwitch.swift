package import Clock
package import JSON

/// The Lerix team's switch that pauses some of this SDK's modules until `endsAt` (server time).
package struct SDKSwitch: Equatable, Sendable {
    package var rule: String
    /// The paused modules, `all` already expanded.
    package var modules: [LerixModule]
    package var endsAt: Instant

    package init(rule: String, modules: [LerixModule], endsAt: Instant) {
        self.rule = rule
        self.modules = Array(Set(modules)).sorted()
        self.endsAt = endsAt
    }

    /// Reads one element of the answer's `sdk_switch` array; nil without a `modules` array or a
    /// valid `ends_at`. Unknown module names are ignored.
    package init?(json: JSON) {
        guard let object = json.objectValue, let names = object["modules"]?.arrayValue,
            let end = object["ends_at"]?.stringValue.flatMap({ Instant(rfc3339: $0) })
        else { return nil }
        let modules = names.compactMap(\.stringValue).flatMap(LerixModule.parse(switchModule:))
        self.init(rule: object["rule"]?.stringValue ?? "", modules: modules, endsAt: end)
    }

    package var json: JSON {
        .object([
            ("rule", .string(rule)), ("modules", .array(modules.map { .string($0.rawValue) })),
            ("ends_at", .string(endsAt.rfc3339)),
        ])
    }
}
