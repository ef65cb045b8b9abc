import Clock
import JSON
import ReleaseControl

extension Evaluation {
    /// The check answer's state object built as a JSON value, field by field in the contract's
    /// order: the reference MockServer's byte writer is compared with
    /// (`ServedAnswerBytesTests`), and what evaluation tests read fields from.
    public var referenceState: JSON {
        func text(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
        let required: JSON =
            requiredUpdate.map { r in
                .object([
                    ("rule", .string(r.rule)),
                    ("below", .string(r.update.below.text)),
                    ("store_url", text(r.update.storeURL)),
                    ("message", text(r.update.message)),
                ])
            } ?? .null
        let optional: JSON =
            optionalUpdate.map { o in
                .object([
                    ("rule", .string(o.rule)),
                    ("kind", .string(o.becomesRequiredOn == nil ? "optional" : "recommended")),
                    ("below", .string(o.update.below.text)),
                    ("store_url", text(o.update.storeURL)),
                    ("message", text(o.update.message)),
                    ("becomes_required_on", text(o.becomesRequiredOn?.rfc3339)),
                ])
            } ?? .null
        return .object([
            ("required_update", required),
            ("optional_update", optional),
            (
                "maintenance",
                .array(
                    maintenance.map { w in
                        .object([
                            ("rule", .string(w.rule)),
                            ("starts_at", .string(w.window.startsAt.rfc3339)),
                            ("ends_at", .string(w.window.endsAt.rfc3339)),
                            ("message", text(w.window.message)),
                        ])
                    }
                )
            ),
            (
                "sdk_switch",
                .array(
                    sdkSwitches.map { s in
                        .object([
                            ("rule", .string(s.rule)),
                            ("modules", .array(s.sdkSwitch.modules.map { .string($0.rawValue) })),
                            ("ends_at", .string(s.sdkSwitch.endsAt.rfc3339)),
                        ])
                    }
                )
            ),
        ])
    }

    /// The whole 200 body as a JSON value, for `serverTime`.
    public func referenceBody(serverTime: Instant) -> JSON {
        guard case .object(let state) = referenceState else { return .null }
        return .object(
            [
                ("project", .string(project)), ("server_time", .string(serverTime.rfc3339)),
                ("lifetime", .number(Double(lifetime))),
            ] + state.pairs.map { ($0.key, $0.value) }
        )
    }
}
