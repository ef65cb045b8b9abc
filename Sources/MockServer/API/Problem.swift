import HTTP
import JSON
import ReleaseControl

/// An error answer as `application/problem+json` (RFC 9457): what went wrong, for a person,
/// and for bad bodies which fields, as JSON pointers, so a client can show them in place.
///
/// ```swift
/// let problem = Problem(status: 422, detail: "the rule breaks a constraint",
///                       errors: [.init(pointer: "/below", message: "not a version: \"two\"")])
/// let response = problem.response   // 422, Content-Type: application/problem+json
/// ```
public struct Problem: Error, Sendable, Equatable {
    /// One bad field: `pointer` is a JSON pointer into the request body (or `parameter` a query name).
    public struct FieldError: Sendable, Equatable {
        public var pointer: String?
        public var parameter: String?
        public var message: String

        public init(pointer: String? = nil, parameter: String? = nil, message: String) {
            self.pointer = pointer
            self.parameter = parameter
            self.message = message
        }
    }

    public var status: Int
    public var title: String
    public var detail: String
    public var errors: [FieldError]
    /// Extra response headers (`Allow` on 405, `WWW-Authenticate` on 401).
    public var headers: HTTPHeaders

    public init(
        status: Int,
        title: String? = nil,
        detail: String,
        errors: [FieldError] = [],
        headers: HTTPHeaders = HTTPHeaders()
    ) {
        self.status = status
        self.title = title ?? HTTPResponse.reasonPhrase(status)
        self.detail = detail
        self.errors = errors
        self.headers = headers
    }

    /// `about:blank` when the title is the status's own phrase (RFC 9457 §4.2.1); otherwise a
    /// URN naming the kind of problem, so clients can tell "Unknown project" from "Unknown rule".
    public var type: String {
        if title == HTTPResponse.reasonPhrase(status) { return "about:blank" }
        var slug = ""
        for c in title.lowercased().unicodeScalars {
            if (c >= "a" && c <= "z") || (c >= "0" && c <= "9") {
                slug.unicodeScalars.append(c)
            } else if !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return "urn:lerix-mock:problem:" + slug
    }

    public var json: JSON {
        var pairs: [(String, JSON)] = [
            ("type", .string(type)), ("title", .string(title)), ("status", .number(Double(status))),
            ("detail", .string(detail)),
        ]
        if !errors.isEmpty {
            pairs.append(
                (
                    "errors",
                    .array(
                        errors.map { error in
                            var item: [(String, JSON)] = []
                            if let pointer = error.pointer { item.append(("pointer", .string(pointer))) }
                            if let parameter = error.parameter { item.append(("parameter", .string(parameter))) }
                            item.append(("message", .string(error.message)))
                            return .object(item)
                        }
                    )
                )
            )
        }
        return .object(pairs)
    }

    public var response: HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers, body: json.prettySerialized())
        response.headers.set("Content-Type", "application/problem+json")
        return response
    }
}

extension Problem {
    static func notFound(_ detail: String) -> Problem { Problem(status: 404, detail: detail) }

    static func unknownProject(_ key: String) -> Problem {
        Problem(
            status: 404,
            title: "Unknown project",
            detail: "there is no project \"\(key)\"; create it with PUT /admin/projects/\(key)"
        )
    }

    /// A body that is not JSON: 400 with the parser's position.
    static func malformedJSON(_ error: JSONSyntaxError) -> Problem {
        Problem(
            status: 400,
            title: "Malformed JSON",
            detail: "the body is not JSON: \(error.description)",
            errors: [FieldError(pointer: "", message: error.description)]
        )
    }

    /// One field problem, titled by its kind like every other body's (400 for a wrong type, else 422).
    static func field(_ pointer: String, _ message: String, _ kind: FieldProblem.Kind) -> Problem {
        Problem(ValidationFailure(pointer, message, kind: kind))
    }

    /// The kinds of mistake in a query or path parameter, titled the same on every endpoint.
    enum ParameterMistake: String {
        case missing = "Missing parameter"
        case unknown = "Unknown parameter"
        case invalid = "Invalid parameter"
    }

    /// One bad query or path parameter (422). `pointer` repeats the name for clients that
    /// read only pointers (the check's errors have always carried both).
    static func parameter(
        _ name: String,
        _ mistake: ParameterMistake,
        detail: String,
        message: String,
        pointer: Bool = false
    ) -> Problem {
        Problem(
            status: 422,
            title: mistake.rawValue,
            detail: detail,
            errors: [
                FieldError(pointer: pointer ? "/" + FieldProblem.escape(name) : nil, parameter: name, message: message)
            ]
        )
    }

    static func storageUnavailable(_ error: any Error) -> Problem {
        Problem(
            status: 503,
            title: "State store unavailable",
            detail: "the write was not stored and nothing changed: \(error)"
        )
    }
}

extension Problem {
    /// Every problem of a body at once, titled by the kind that wins (a wrong type, then an
    /// unknown field, a missing one, a bad value), so one mistake has one type on every body.
    init(_ failure: ValidationFailure, detail: String? = nil) {
        self.init(
            status: failure.status,
            title: failure.kind.title,
            detail: detail ?? failure.description,
            errors: failure.problems.map { FieldError(pointer: $0.pointer, message: $0.message) }
        )
    }
}
