/// A problem in a scenario (or catalogue) file: `file:line:column: message`.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String

    public init(_ message: String, at location: SourceLocation) {
        self.message = message
        self.location = location
    }

    public var description: String { "\(location): \(message)" }
}

/// Every problem of one file that does not parse, in file order (never empty).
public struct ScenarioFileErrors: Error, Sendable, Equatable, CustomStringConvertible {
    public var errors: [ScenarioError]

    public init(_ errors: [ScenarioError]) { self.errors = errors }

    public var file: String { errors.first?.location.file ?? "" }
    /// One line per problem.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
