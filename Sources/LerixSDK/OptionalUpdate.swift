package import Clock
import Foundation
package import JSON

/// An optional or recommended update: a prompt the user may defer with Later or Skip.
///
/// ```swift
/// if lerix.state.screen == .optionalUpdate, let update = lerix.state.optionalUpdate {
///     showPrompt(update.message, store: update.storeURL, later: lerix.later, skip: lerix.skip)
/// }
/// ```
public struct OptionalUpdate: Equatable, Sendable {
    /// How strongly the update is offered.
    public enum Kind: String, Sendable {
        /// Offered; it never blocks.
        case optional
        /// Offered, and required from ``OptionalUpdate/becomesRequiredOn`` on.
        case recommended
    }

    /// The server's rule id (what Skip remembers).
    public var rule: String
    /// Optional or recommended.
    public var kind: Kind
    /// The first version that no longer sees the prompt.
    public var below: String?
    /// Where the update is installed from.
    public var storeURL: String?
    /// Text for the prompt, when the rule has one.
    public var message: String?
    package var deadline: Instant?

    /// When a recommended update turns into a required one (server time). On Android and
    /// Flutter it turns required at that time even offline.
    public var becomesRequiredOn: Date? {
        get { deadline?.date }
        set { deadline = newValue.map(Instant.init) }
    }

    /// An update as an answer would carry it.
    public init(
        rule: String,
        kind: Kind = .optional,
        below: String? = nil,
        storeURL: String? = nil,
        message: String? = nil,
        becomesRequiredOn: Date? = nil
    ) {
        self.init(
            rule: rule,
            kind: kind,
            below: below,
            storeURL: storeURL,
            message: message,
            deadline: becomesRequiredOn.map(Instant.init)
        )
    }

    package init(
        rule: String,
        kind: Kind = .optional,
        below: String? = nil,
        storeURL: String? = nil,
        message: String? = nil,
        deadline: Instant?
    ) {
        self.rule = rule
        self.kind = kind
        self.below = below
        self.storeURL = storeURL
        self.message = message
        self.deadline = deadline
    }

    /// Reads the answer's `optional_update` object. An unknown `kind` reads as optional, a bad
    /// `becomes_required_on` as none. Nil for anything that is not an object.
    package init?(json: JSON) {
        guard let object = json.objectValue else { return nil }
        self.init(
            rule: object["rule"]?.stringValue ?? "",
            kind: object["kind"]?.stringValue.flatMap(Kind.init(rawValue:)) ?? .optional,
            below: object["below"]?.stringValue,
            storeURL: object["store_url"]?.stringValue,
            message: object["message"]?.stringValue,
            deadline: object["becomes_required_on"]?.stringValue.flatMap { Instant(rfc3339: $0) }
        )
    }

    /// The required update this recommended update turns into once its deadline passes.
    package var asRequired: RequiredUpdate {
        RequiredUpdate(rule: rule, below: below, storeURL: storeURL, message: message)
    }

    package var json: JSON {
        .object([
            ("rule", .string(rule)), ("kind", .string(kind.rawValue)), ("below", below.map(JSON.string) ?? .null),
            ("store_url", storeURL.map(JSON.string) ?? .null), ("message", message.map(JSON.string) ?? .null),
            ("becomes_required_on", deadline.map { .string($0.rfc3339) } ?? .null),
        ])
    }
}
