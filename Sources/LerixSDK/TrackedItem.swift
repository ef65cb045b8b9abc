package import JSON

/// One item an app hands to a module (an error report, an analytics event, a survey answer):
/// any JSON-shaped value, written with Swift literals. Items wait on the device until sent.
///
/// ```swift
/// lerix.track(.analytics, ["event": "purchase", "amount": 9.99, "items": ["sku-1", "sku-2"], "coupon": nil])
/// lerix.track(.errors, ["message": "decode failed", "fatal": false, "line": 42])
/// ```
public struct TrackedItem: Equatable, Sendable, CustomStringConvertible {
    /// The item as the ingest endpoint receives it.
    package let json: JSON

    package init(json: JSON) { self.json = json }

    /// The item's JSON text, as it is sent.
    public var description: String { json.serializedString }
}

extension TrackedItem: ExpressibleByDictionaryLiteral {
    /// An object; keys keep their written order.
    public init(dictionaryLiteral elements: (String, TrackedItem)...) {
        json = .object(elements.map { ($0.0, $0.1.json) })
    }
}

extension TrackedItem: ExpressibleByArrayLiteral {
    /// An array.
    public init(arrayLiteral elements: TrackedItem...) { json = .array(elements.map(\.json)) }
}

extension TrackedItem: ExpressibleByStringLiteral {
    /// A string.
    public init(stringLiteral value: String) { json = .string(value) }
}

extension TrackedItem: ExpressibleByIntegerLiteral {
    /// A number.
    public init(integerLiteral value: Int) { json = .number(Double(value)) }
}

extension TrackedItem: ExpressibleByFloatLiteral {
    /// A number.
    public init(floatLiteral value: Double) { json = .number(value) }
}

extension TrackedItem: ExpressibleByBooleanLiteral {
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { json = .bool(value) }
}

extension TrackedItem: ExpressibleByNilLiteral {
    /// JSON `null`.
    public init(nilLiteral: ()) { json = .null }
}

extension TrackedItem {
    /// A text value computed at run time (`TrackedItem(screenName)`).
    public init(_ text: String) { json = .string(text) }
    /// A number computed at run time; NaN and infinities are sent as `null`.
    public init(_ number: Double) { json = number.isFinite ? .number(number) : .null }
    /// A whole number computed at run time.
    public init(_ number: Int) { json = .number(Double(number)) }
    /// A flag computed at run time.
    public init(_ flag: Bool) { json = .bool(flag) }
}
