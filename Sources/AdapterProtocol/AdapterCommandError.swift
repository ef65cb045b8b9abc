import JSON

/// Why a command was refused (`ok: false`), in words for the harness's log: a malformed
/// request, an unknown command or device, or a field that is missing, unknown or of the
/// wrong type (then `pointer` names it, `/config/platform`, as admin problems do).
public struct AdapterCommandError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The JSON pointer of the field at fault inside the request, when one is.
    public var pointer: String?

    public init(_ message: String, pointer: String? = nil) {
        self.message = message
        self.pointer = pointer
    }

    /// "/config/plattform: unknown field 'plattform' in …", the admin API's wording.
    public init(_ problem: FieldProblem) {
        self.init(problem.description, pointer: problem.pointer)
    }

    public var description: String { message }
}
