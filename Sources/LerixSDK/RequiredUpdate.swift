package import JSON

/// A required update: the app blocks until the user installs a version at or above `below`.
///
/// ```swift
/// if let update = lerix.state.requiredUpdate { showBlockingUpdate(update.message, store: update.storeURL) }
/// ```
public struct RequiredUpdate: Equatable, Sendable {
    /// The server's rule id (empty when the answer did not carry a usable one).
    public var rule: String
    /// The first version that is no longer blocked.
    public var below: String?
    /// Where the update is installed from.
    public var storeURL: String?
    /// Text for the blocking screen, when the rule has one.
    public var message: String?

    /// An update as an answer would carry it.
    public init(rule: String, below: String? = nil, storeURL: String? = nil, message: String? = nil) {
        self.rule = rule
        self.below = below
        self.storeURL = storeURL
        self.message = message
    }

    /// Reads the answer's `required_update` object; any object blocks (fail safe), and fields of
    /// the wrong type read as absent. Nil for anything that is not an object.
    package init?(json: JSON) {
        guard let object = json.objectValue else { return nil }
        self.init(
            rule: object["rule"]?.stringValue ?? "",
            below: object["below"]?.stringValue,
            storeURL: object["store_url"]?.stringValue,
            message: object["message"]?.stringValue
        )
    }

    /// The contract's shape, as the adapter's `state` and the saved answer write it.
    package var json: JSON {
        .object([
            ("rule", .string(rule)), ("below", below.map(JSON.string) ?? .null),
            ("store_url", storeURL.map(JSON.string) ?? .null), ("message", message.map(JSON.string) ?? .null),
        ])
    }
}
