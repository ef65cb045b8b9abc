import Clock
import JSON

extension RuleBody {
    /// Validates a rule body per the contract's "Rules" and collects every problem.
    ///
    /// - Not an object, or a field of the wrong JSON type: a type error (400).
    /// - A key the type does not have: an unknown field (422) suggesting the nearest known key,
    ///   so a typo never changes what the rule means (`platform` for `platforms` would block
    ///   every platform).
    /// - A missing required field (`null` counts as missing), an unknown type, platform or
    ///   module, a bad version or time, an empty list, a window that ends before it starts or
    ///   lasts over 7 days: a rule violation (422).
    /// - Optional fields that are `null` count as absent, as the admin API shows them.
    ///
    /// - Parameter id: the id of the rule this body writes (a `PUT`'s, a snapshot's); the body
    ///   may repeat it unchanged, as `GET` shows it. nil on create: the server assigns the id.
    public static func decode(_ json: JSON, id: String? = nil) throws(ValidationFailure) -> RuleBody {
        var reader = RuleBodyReader()
        guard case .object(let object) = json else {
            throw ValidationFailure("", "a rule must be a JSON object, found \(json.typeName)", kind: .wrongType)
        }
        guard let typeText = reader.requiredString(object, "type") else {
            reader.problems += fields(of: nil, id: id).problems(in: object)
            throw reader.failure
        }
        guard let type = RuleType(rawValue: typeText) else {
            reader.fail(
                "/type",
                "unknown rule type \"\(typeText)\""
                    + KeySuggestion.hint(for: typeText, in: RuleType.allCases.map(\.rawValue))
            )
            throw reader.failure
        }
        reader.problems += fields(of: type, id: id).problems(in: object)
        let body: RuleBody?
        switch type {
        case .requiredUpdate, .optionalUpdate, .recommendedUpdate:
            let platforms = reader.platforms(object)
            let below = reader.requiredVersion(object, "below")
            let storeURL = reader.optionalString(object, "store_url")
            let message = reader.optionalString(object, "message")
            var deadline: Instant?
            if type == .recommendedUpdate { deadline = reader.requiredTime(object, "becomes_required_on") }
            guard let below, let platforms else {
                body = nil
                break
            }
            let update = UpdateRule(platforms: platforms.value, below: below, storeURL: storeURL, message: message)
            switch type {
            case .requiredUpdate: body = .requiredUpdate(update)
            case .optionalUpdate: body = .optionalUpdate(update)
            default:
                guard let deadline else {
                    body = nil
                    break
                }
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
                    reader.fail(
                        "/ends_at",
                        "a window may last at most 7 days; it must end by \(start.adding(seconds: MaintenanceWindow.maximumDurationSeconds).rfc3339)"
                    )
                }
            }
            guard let platforms, let start, let end else {
                body = nil
                break
            }
            body = .maintenance(
                MaintenanceWindow(platforms: platforms.value, startsAt: start, endsAt: end, message: message)
            )
        case .sdkSwitch:
            let sdks = reader.sdks(object)
            let modules = reader.modules(object)
            let end = reader.requiredTime(object, "ends_at")
            guard let sdks, let modules, let end else {
                body = nil
                break
            }
            body = .sdkSwitch(SDKSwitch(sdks: sdks.value, modules: modules, endsAt: end))
        }
        guard reader.problems.isEmpty, let body else { throw reader.failure }
        return body
    }
}

extension RuleBody {
    /// The keys of one rule type's body, as the admin API shows them.
    public static func writableFields(of type: RuleType) -> [String] {
        switch type {
        case .requiredUpdate, .optionalUpdate: return ["type", "platforms", "below", "store_url", "message"]
        case .recommendedUpdate: return ["type", "platforms", "below", "store_url", "message", "becomes_required_on"]
        case .maintenance: return ["type", "platforms", "starts_at", "ends_at", "message"]
        case .sdkSwitch: return ["type", "sdks", "modules", "ends_at"]
        }
    }

    /// The keys a body of `type` may hold (nil: the type is missing, so any rule's key passes
    /// and only keys no rule has are refused).
    static func fields(of type: RuleType?, id: String?) -> BodyFields {
        let shown: [(key: String, value: JSON?)] = [("id", id.map(JSON.string))]
        guard let type else {
            let all = RuleType.allCases.flatMap(writableFields(of:))
            return BodyFields(name: "a rule", writable: Array(Set(all)).sorted(), shown: shown)
        }
        let own = writableFields(of: type)
        var elsewhere: [String: String] = [:]
        for other in RuleType.allCases where other != type {
            for key in writableFields(of: other) where !own.contains(key) {
                elsewhere[key, default: ""] += elsewhere[key] == nil ? other.rawValue : ", " + other.rawValue
            }
        }
        for (key, types) in elsewhere { elsewhere[key] = "\(key) belongs to \(types) rules" }
        let article = type.rawValue.first.map { "aeiou".contains($0) } == true ? "an" : "a"
        return BodyFields(name: "\(article) \(type.rawValue) rule", writable: own, shown: shown, elsewhere: elsewhere)
    }
}
