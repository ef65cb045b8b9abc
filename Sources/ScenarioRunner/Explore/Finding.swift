import JSON

/// A judge's verdict on one history: the first move after which the SDK under test did
/// something the reference did not (differential) or the spec forbids (a property).
public struct Finding: Sendable {
    /// `differential` or the property's name (``SpecProperty/name``).
    public var judge: String
    /// The move after which it showed, 0-based.
    public var step: Int
    /// The state fields involved (`screen`, `checks`, …).
    public var fields: [String]
    /// One line a person acts on: what was expected and what was seen.
    public var message: String
    /// Spec catalogue rows the finding is about.
    public var covers: [String]
    /// What the device should have shown after the move, as a scenario's `expect` writes it.
    public var expected: JSONObject
    /// For a finding about what the SDK asked rather than what it showed: what the server's
    /// journal should hold after the move, as `expect_server` writes it (then `expected` is unused).
    public var expectedServer: JSONObject? = nil
    /// For a check made at another time than the reference's within one time move: the
    /// virtual time (ms since time 0) to split that move at, so an expectation can see it.
    public var splitAt: Int64? = nil

    /// What stays the same while shrinking: the same judge, about the same fields.
    public var signature: String { judge + ":" + fields.sorted().joined(separator: ",") }
}
