/// Every problem found in one body, not just the first, with the HTTP status it earns.
///
/// A malformed body or a field of the wrong type wins over rule violations (400 over
/// 422), as the contract says; the problem list keeps both kinds so the caller sees all.
///
/// ```swift
/// do { _ = try RuleBody.decode(json) } catch {
///     respond(status: error.status, problems: error.problems.map(\.json))
/// }
/// ```
public struct ValidationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [FieldProblem]

    public init(problems: [FieldProblem]) {
        self.problems = problems
    }

    /// 400 when any problem is a type error, else 422.
    public var status: Int { problems.contains(where: \.isTypeError) ? 400 : 422 }

    /// The same failure with every pointer placed under `prefix` (for example
    /// `/projects/0/rules/2`), for bodies nested in a larger document such as a config file.
    public func prefixingPointers(with prefix: String) -> ValidationFailure {
        ValidationFailure(problems: problems.map {
            FieldProblem(pointer: prefix + $0.pointer, message: $0.message, isTypeError: $0.isTypeError)
        })
    }

    /// One line per problem.
    public var description: String { problems.map(\.description).joined(separator: "; ") }
}
