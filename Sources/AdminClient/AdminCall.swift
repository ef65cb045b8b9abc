import JSON

/// One call of the mock's admin API as a value, no I/O: its method, its path with the query, its
/// JSON body, and how its answer reads. LerixMock (in process), the scenario runner (in process
/// or over HTTP) and the adapter host (over HTTP) send the same calls, each through its own
/// transport, so each route is written once, in ``Admin`` and ``ProjectAdmin``.
///
/// ```swift
/// let call = Admin.project("demo").createRule(.object([("type", "maintenance")]))
/// (call.method, call.path)                 // ("POST", "/admin/projects/demo/rules")
/// let id = try call.answer(from: reply)    // "r1"
/// ```
public struct AdminCall<Answer>: Sendable {
    public let method: String
    /// The path and its query, from the server's root (`/admin/clock`).
    public let path: String
    /// The request's body; nil sends none.
    public let body: JSON?
    private let read: @Sendable (JSON) throws(AdminAnswerError) -> Answer

    public init(
        _ method: String,
        _ path: String,
        body: JSON? = nil,
        read: @escaping @Sendable (JSON) throws(AdminAnswerError) -> Answer
    ) {
        self.method = method
        self.path = path
        self.body = body
        self.read = read
    }

    /// The answer's JSON (`null` for an empty body) read as `Answer`.
    public func answer(from json: JSON) throws(AdminAnswerError) -> Answer { try read(json) }

    /// `METHOD /path`, for messages.
    public var description: String { method + " " + path }
}

extension AdminCall where Answer == Void {
    /// A call whose answer carries nothing the caller reads (204, or a body it ignores).
    init(_ method: String, _ path: String, body: JSON? = nil) {
        self.init(method, path, body: body) { _ in }
    }
}

extension AdminCall where Answer == JSON {
    /// A call whose answer the caller reads as JSON itself.
    init(_ method: String, _ path: String, json body: JSON? = nil) {
        self.init(method, path, body: body) { $0 }
    }
}

/// An admin answer without the shape its call promises (an older or other server).
public struct AdminAnswerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
