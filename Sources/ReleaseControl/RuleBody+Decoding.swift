import Clock
import JSON

extension RuleBody {
    /// Validates a rule body per the contract's "Rules" and collects every problem.
    ///
    /// - Not an object, or a field of the wrong JSON type: a type error (400).
    /// - A missing required field (`null` counts as missing), an unknown type, platform or
    ///   module, a bad version or time, an empty list, a window that ends before it starts or
    ///   lasts over 7 days: a rule violation (422).
    /// - Optional fields that are `null` count as absent. Fields the type does not use
    ///   (including `id`) are ignored, so a rule fetched from the admin API can be sent back.
    public static func decode(_ json: JSON) throws(ValidationFailure) -> RuleBody {
        var reader = RuleBodyReader()
        guard case .object(let object) = json else {
            throw ValidationFailure(problems: [
                FieldProblem(pointer: "", message: "a rule must be a JSON object, found \(json.typeName)", isTypeError: true)
            ])
        }
        guard let typeText = reader.requiredString(object, "type") else { throw reader.failure }
        guard let type = RuleType(rawValue: typeText) else {
            reader.fail("/type", "unknown rule type \"\(typeText)\"; expected one of \(RuleType.listText)")
            throw reader.failure
        }
        let body: RuleBody?
        switch type {
        case .requiredUpdate, .optionalUpdate, .recommendedUpdate:
            let platforms = reader.platforms(object)
            let below = reader.requiredVersion(object, "below")
            let storeURL = reader.optionalString(object, "store_url")
            let message = reader.optionalString(object, "message")
            var deadline: Instant?
            if type == .recommendedUpdate { deadline = reader.requiredTime(object, "becomes_required_on") }
            guard let below, let platforms else { body = nil; break }
            let update = UpdateRule(platforms: platforms.value, below: below, storeURL: storeURL, message: message)
            switch type {
            case .requiredUpdate: body = .requiredUpdate(update)
            case .optionalUpdate: body = .optionalUpdate(update)
            default:
                guard let deadline else { body = nil; break }
                body = .recommendedUpdate(update, becomesRequiredOn: deadline)
            }
        case .maintenance:
            let platforms = reader.platforms(object)
            let start = reader.requiredTime(object, "starts_at")
            let end = reader.requiredTime(object, "ends_at")
            let message = reader.optionalString(object, "message")
            if let start, let end {
                if end <= start {
                    reader.fail("/ends_at", "a window must end after it starts (starts_at is \(start.rfc3339))")
                } else if end.milliseconds(since: start) > MaintenanceWindow.maximumDurationSeconds * 1000 {
                    reader.fail("/ends_at", "a window may last at most 7 days; it must end by \(start.adding(seconds: MaintenanceWindow.maximumDurationSeconds).rfc3339)")
                }
            }
            guard let platforms, let start, let end else { body = nil; break }
            body = .maintenance(MaintenanceWindow(platforms: platforms.value, startsAt: start, endsAt: end, message: message))
        case .sdkSwitch:
            let sdks = reader.sdks(object)
            let modules = reader.modules(object)
            let end = reader.requiredTime(object, "ends_at")
            guard let sdks, let modules, let end else { body = nil; break }
            body = .sdkSwitch(SDKSwitch(sdks: sdks.value, modules: modules, endsAt: end))
        }
        guard reader.problems.isEmpty, let body else { throw reader.failure }
        return body
    }
}
