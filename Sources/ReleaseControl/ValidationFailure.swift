import JSON

/// Every problem found in one body, not just the first, with the HTTP status it earns.
///
/// A malformed body or a field of the wrong type wins over rule violations (400 over
/// 422), as the contract says; the problem list keeps every kind so the caller sees all.
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

    public init(_ pointer: String, _ message: String, kind: FieldProblem.Kind) {
        self.init(problems: [FieldProblem(pointer: pointer, message: message, kind: kind)])
    }

    /// The kind that names the whole failure: the first in ``FieldProblem/Kind`` order
    /// (a wrong type, then an unknown field, a missing one, a bad value).
    public var kind: FieldProblem.Kind { problems.map(\.kind).min() ?? .invalidValue }

    /// 400 when any problem is a type error, else 422.
    public var status: Int { kind.status }

    /// The same failure with every pointer placed under `prefix` (for example
    /// `/projects/0/rules/2`), for bodies nested in a larger document such as a config file.
    public func prefixingPointers(with prefix: String) -> ValidationFailure {
        ValidationFailure(
            problems: problems.map {
                FieldProblem(pointer: prefix + $0.pointer, message: $0.message, kind: $0.kind)
            }
        )
    }

    /// One line per problem.
    public var description: String { problems.map(\.description).joined(separator: "; ") }
}
