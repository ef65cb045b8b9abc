import Clock
import JSON

extension RuleBody {
    /// The body as the admin API shows it, `type` first; absent optional fields are `null`.
    public var json: JSON { .object(jsonPairs) }

    var jsonPairs: [(String, JSON)] {
        var pairs: [(String, JSON)] = [("type", .string(type.rawValue))]
        switch self {
        case .requiredUpdate(let u), .optionalUpdate(let u):
            pairs += RuleBody.updatePairs(u)
        case .recommendedUpdate(let u, let deadline):
            pairs += RuleBody.updatePairs(u)
            pairs.append(("becomes_required_on", .string(deadline.rfc3339)))
        case .maintenance(let w):
            pairs.append(("platforms", RuleBody.platformsJSON(w.platforms)))
            pairs.append(("starts_at", .string(w.startsAt.rfc3339)))
            pairs.append(("ends_at", .string(w.endsAt.rfc3339)))
            pairs.append(("message", w.message.map(JSON.string) ?? .null))
        case .sdkSwitch(let s):
            if let sdks = s.sdks {
                pairs.append(
                    (
                        "sdks",
                        .array(
                            sdks.map { match in
                                .object([
                                    ("name", .string(match.name)),
                                    ("below", match.below.map { .string($0.text) } ?? .null),
                                ])
                            }
                        )
                    )
                )
            } else {
                pairs.append(("sdks", .null))
            }
            pairs.append(("modules", .array(s.modules.map { .string($0.rawValue) })))
            pairs.append(("ends_at", .string(s.endsAt.rfc3339)))
        }
        return pairs
    }

    static func updatePairs(_ u: UpdateRule) -> [(String, JSON)] {
        [
            ("platforms", platformsJSON(u.platforms)),
            ("below", .string(u.below.text)),
            ("store_url", u.storeURL.map(JSON.string) ?? .null),
            ("message", u.message.map(JSON.string) ?? .null),
        ]
    }

    static func platformsJSON(_ platforms: [Platform]?) -> JSON {
        guard let platforms else { return .null }
        return .array(platforms.map { .string($0.rawValue) })
    }
}
